import { Agent, fetch as undiciFetch } from 'undici';
import { notAResponseHead } from '../../internal/not-a-response.js';
import { REFUSED_TARGET, type TargetGuard, TargetRefusedError } from './target-guard.js';

/** The parts of a body stream's reader the sandbox uses (a web `ReadableStreamDefaultReader`). */
export interface OutboundBodyReader {
  /** The next chunk of the body; `done: true` at its end. */
  read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
  /** Stops reading: called when a download passes the size limit. */
  cancel(reason?: unknown): Promise<void>;
}

/** The parts of a fetch `Response` the sandbox reads. */
export interface OutboundResponse {
  /** The HTTP status; a delivery counts as `delivered` for 2xx, a download succeeds on 2xx. */
  status: number;
  /** The answer's headers; downloads read `content-type`, `content-length`, `content-disposition`. */
  headers: {
    /** A header's value by name (any case), or `null` when absent. */
    get(name: string): string | null;
  };
  /** The whole body: used when `body` has no `getReader`. */
  arrayBuffer(): Promise<ArrayBuffer>;
  /**
   * `getReader` lets a download stop at the size limit instead of reading the file whole.
   * Optional so a minimal stand-in fetch without a body stream still works (it is then read
   * whole with `arrayBuffer()`, and checked afterwards).
   */
  body: {
    /** Drops the body unread (a delivery's answer, a refused download). */
    cancel(): Promise<void>;
    /** A reader over the body's chunks, read up to the size limit. */
    getReader?(): OutboundBodyReader;
  } | null;
}

/**
 * How the sandbox makes its own requests (downloading `url` attachments, delivering
 * webhooks): any fetch-compatible function.
 */
export type OutboundFetch = (
  url: string,
  init: {
    method: string;
    headers?: Record<string, string>;
    body?: string;
    signal?: AbortSignal;
    redirect?: 'follow' | 'manual';
  },
) => Promise<OutboundResponse>;

/** At most this many redirects are followed for a `url` attachment. */
export const MAX_REDIRECTS = 5;

/**
 * undici's own `fetch`, not `globalThis.fetch`: msw patches the global one, and a sandbox
 * running as msw handlers must still reach a real webhook receiver or file server. Pass
 * `fetch: globalThis.fetch` in the sandbox options to route these through msw instead.
 * Its connections check each address as they open (see {@link TargetGuard}).
 */
export function guardedUndiciFetch(guard: TargetGuard): { fetch: OutboundFetch; close(): Promise<void> } {
  let agent: Agent | undefined;
  return {
    fetch: (url, init) => {
      agent ??= new Agent({ connect: { lookup: guard.connectLookup } });
      return undiciFetch(url, { ...init, dispatcher: agent });
    },
    close: async () => {
      const open = agent;
      agent = undefined;
      await open?.destroy().catch(() => undefined);
    },
  };
}

/** Why a request of the sandbox's own got no answer: refused by the guard, or no answer at all. */
export class OutboundError extends Error {
  override name = 'OutboundError';

  constructor(
    message: string,
    readonly refused: boolean,
  ) {
    super(message);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Sends one of the sandbox's own requests where the guard allows, following up to
 * {@link MAX_REDIRECTS} redirects when `follow` (each new address checked before it is asked).
 * @throws OutboundError worded without any address: refused, or no answer.
 */
export async function sendOutbound(
  fetch: OutboundFetch,
  guard: TargetGuard,
  url: string,
  init: Omit<Parameters<OutboundFetch>[1], 'redirect'>,
  follow: boolean,
): Promise<OutboundResponse> {
  let target = url;
  for (let hop = 0; ; hop++) {
    let response: OutboundResponse;
    try {
      await guard.check(new URL(target));
      response = await fetch(target, { ...init, redirect: 'manual' });
    } catch (error) {
      throw outboundFailure(error, hop > 0);
    }
    const wrong = notAResponseHead(response);
    if (wrong !== undefined) {
      throw new OutboundError(`the fetch given to the sandbox resolved ${wrong}, not a Response`, false);
    }
    const location = REDIRECTS.has(response.status) ? response.headers.get('location') : null;
    if (!follow || location === null) return response;
    await response.body?.cancel().catch(() => undefined);
    if (hop >= MAX_REDIRECTS) throw new OutboundError(`more than ${MAX_REDIRECTS} redirects`, false);
    const next = safeUrl(location, target);
    if (next === undefined) throw new OutboundError('a redirect led to an address that is not http(s)', true);
    target = next;
  }
}

function safeUrl(location: string, base: string): string | undefined {
  try {
    const next = new URL(location, base);
    return next.protocol === 'http:' || next.protocol === 'https:' ? next.href : undefined;
  } catch {
    return undefined;
  }
}

/** One wording per kind of failure: it must not tell an open port from a closed one, nor show an address. */
function outboundFailure(error: unknown, redirected: boolean): OutboundError {
  for (let cause = error, i = 0; cause instanceof Error && i < 4; cause = cause.cause, i++) {
    if (cause instanceof TargetRefusedError) {
      return new OutboundError(
        redirected ? `a redirect led elsewhere: ${REFUSED_TARGET}` : REFUSED_TARGET,
        true,
      );
    }
  }
  return new OutboundError(
    'no answer (the name did not resolve, or the connection failed or timed out)',
    false,
  );
}
