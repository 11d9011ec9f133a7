import { pipeline, type Readable, Transform } from 'node:stream';
import type { StreamedBody } from '../wire/types.js';
import type { CallSignal } from './call-signal.js';

/** A request body as it is sent, each chunk counting as progress of the call's idle watch. */
export type WatchBody = (source: StreamedBody, call: CallSignal, timeoutMs: number) => StreamedBody;

/**
 * The request body as it is sent, each chunk counting as progress of the call's idle watch.
 * undici's `headersTimeout` does not run while a body is being written, so without this a
 * source that stops (a stalled `Readable` or web stream) kept the call pending for ever.
 * The watch ends when the body is all read: the wire's own timeout covers the answer.
 * Destroying the returned stream destroys the source.
 */
export function watchNodeBody(source: Readable, call: CallSignal, timeoutMs: number): Readable {
  call.watchIdle('the request body', timeoutMs);
  const watched = new Transform({
    transform(chunk, _encoding, done) {
      call.watchIdle('the request body', timeoutMs);
      done(null, chunk);
    },
    flush(done) {
      call.unwatchIdle();
      done();
    },
    // At once, not a tick later through the pipeline: the caller sees its source destroyed
    // by the time the call rejects.
    destroy(error, done) {
      source.destroy(error ?? undefined);
      done(error);
    },
  });
  // The source's error destroys `watched` with it (the wire sees the failure); the callback
  // only keeps the pipeline's error from being unhandled.
  return pipeline(source, watched, () => undefined);
}
