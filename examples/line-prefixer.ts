// Used by run-demo.ts: prefixes a child process's output line by line.
import { StringDecoder } from 'node:string_decoder';

/** Feeds output in the chunks it arrives in; writes whole lines, each with the prefix once. */
export interface LinePrefixer {
  push(chunk: Buffer | string): void;
  /** Writes a last line that had no newline (call when the stream ends). */
  flush(): void;
}

/**
 * A pipe delivers output in chunks that need not end at a line break (nor at a character
 * boundary), so prefixing each chunk would prefix a split line twice. This keeps the partial
 * last line until its newline arrives, and decodes UTF-8 across chunks. Empty lines are dropped
 * to keep the demo's output compact.
 */
export function linePrefixer(prefix: string, write: (text: string) => void): LinePrefixer {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  const emit = (lines: string[]) => {
    const text = lines
      .filter((line) => line !== '')
      .map((line) => `${prefix}${line}\n`)
      .join('');
    if (text !== '') write(text);
  };
  return {
    push(chunk) {
      const lines = (partial + (typeof chunk === 'string' ? chunk : decoder.write(chunk))).split('\n');
      partial = lines.pop() ?? '';
      emit(lines);
    },
    flush() {
      const rest = partial + decoder.end();
      partial = '';
      emit([rest]);
    },
  };
}
