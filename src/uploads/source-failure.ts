import type { Readable } from 'node:stream';
import { ClaimsError } from '../errors.js';
import { errorMessage } from '../internal/error-message.js';
import { excerpt, quote } from '../internal/quote.js';

/**
 * The error for a source that failed while its upload was prepared or sent; its own error is
 * the cause. Its outcome is `not_sent`: the request was cut off before its body ended (or never
 * started), and a server cannot store attachments from a multipart body that never ended.
 */
export function sourceFailureError(failure: { filename: string; error: unknown }): ClaimsError {
  return new ClaimsError(
    `Upload aborted: reading ${quote(failure.filename)} failed: ${excerpt(errorMessage(failure.error))}`,
    { cause: failure.error, outcome: 'not_sent' },
  );
}

/** Which source failed first, and the body of the attempt in progress, to cut it off. */
export class SourceState {
  failure: { filename: string; error: unknown } | undefined;
  current: Readable | undefined;

  watch(stream: Readable, filename: string): void {
    stream.on('error', (error: unknown) => {
      this.failure ??= { filename, error };
      // Also when the part's turn has not come yet: then nothing else listens, and the
      // request must fail rather than wait for a part that will never end.
      this.current?.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  }
}
