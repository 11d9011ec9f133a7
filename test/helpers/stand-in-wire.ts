/** Scripted wires for unit tests of what chooses a wire: no socket, an answer at once. */
import type { WireRequest, WireResponse } from '../../src/wire/types.js';

const signal = {
  aborted: false,
  reason: undefined,
  addEventListener: () => undefined,
  removeEventListener: () => undefined,
};

/** A POST to a fixed URL with `body`, on a signal that never aborts. */
export function request(body?: WireRequest['body']): WireRequest {
  return {
    url: 'http://127.0.0.1/x',
    origin: 'http://127.0.0.1',
    path: '/x',
    method: 'POST',
    headers: {},
    body,
    signal,
    timeoutMs: 1_000,
  };
}

/** A wire that answers at once and records its calls in `log`. */
export function standIn(name: string, log: string[]) {
  let closed = 0;
  return {
    wire: async (): Promise<WireResponse> => {
      log.push(name);
      return {
        status: 201,
        rawHeaders: {},
        headers: () => ({}),
        text: async () => ({ text: '{}', truncated: false }),
      };
    },
    close: async () => {
      closed++;
    },
    closed: () => closed,
  };
}

/** One turn of the event loop. */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
