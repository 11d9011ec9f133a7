import type { StreamedBody, WebStreamBody } from '../wire/types.js';
import type { CallSignal } from './call-signal.js';

/**
 * The edge build's body watch: the same as the Node one (`watchNodeBody`), over a web stream.
 * Each chunk counts as progress of the call's idle watch, so a source that stops ends the call.
 */
export function watchWebBody(source: StreamedBody, call: CallSignal, timeoutMs: number): WebStreamBody {
  const body = source as WebStreamBody;
  call.watchIdle('the request body', timeoutMs);
  const web = body.web.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        call.watchIdle('the request body', timeoutMs);
        controller.enqueue(chunk);
      },
      flush() {
        call.unwatchIdle();
      },
    }),
  );
  return { web, destroy: (error) => body.destroy(error) };
}
