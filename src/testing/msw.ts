import { ClaimsError } from '../errors.js';
import { handleControl, isControlPath, MAX_CONTROL_BODY_BYTES } from './core/control-routes.js';
import { MAX_FAULT_WAIT_MS } from './core/faults/fault.js';
import { errorResponse, SandboxHttpError } from './core/http.js';
import { pause } from './core/pause.js';
import { payloadTooLarge, SandboxCore, type SandboxCoreOptions } from './core/sandbox-core.js';
import type { SandboxResponse } from './core/types.js';

/** Options of {@link claimsHandlers}. */
export interface ClaimsHandlersOptions extends SandboxCoreOptions {
  /**
   * The base URL the handlers answer under; give the same to `ClaimsClient`. A path prefix
   * such as `/api/v1` is kept.
   * @default 'https://claims.sandbox.test' ({@link SANDBOX_MSW_BASE_URL})
   */
  baseUrl?: string;
  /** A core to serve (e.g. `sandbox.core`, to share state); otherwise a new one from these options. */
  sandbox?: SandboxCore;
}

/**
 * One msw request handler, opaque: pass it to msw's `setupServer(...)` or `server.use(...)`.
 * Typed `never` so that it fits msw's handler parameters while these types do not depend on
 * msw's own: `createSandbox` users need not install msw, nor its types.
 */
export type ClaimsMswHandler = never;

/** msw request handlers, with the sandbox core they serve (for its token, deliveries and seed). */
export type ClaimsHandlers = ReadonlyArray<ClaimsMswHandler> & {
  /** The core the handlers serve: its `token`, `seed()`, `incident()`, `deliveries`, `settled()`. */
  readonly sandbox: SandboxCore;
};

/** The default base URL of {@link claimsHandlers}. */
export const SANDBOX_MSW_BASE_URL = 'https://claims.sandbox.test';

interface MswHttp {
  all(path: RegExp, resolver: (info: { request: Request }) => Promise<Response>): unknown;
}

/**
 * msw is an optional peer dependency, loaded only when handlers are asked for: importing
 * `claims-notification-sdk/testing` (and `createSandbox`) works without it. A real `import()`
 * (kept as such in both builds) loads the same msw module the user's own `import 'msw/node'`
 * does, from ESM and from CommonJS alike; a bundler's `require` shim cannot load it from ESM.
 */
async function loadMsw(): Promise<MswHttp> {
  try {
    const msw = (await import('msw')) as { http: MswHttp };
    return msw.http;
  } catch (error) {
    throw new ClaimsError('claimsHandlers() needs msw: install it with `npm install --save-dev msw`', {
      cause: error,
    });
  }
}

/**
 * msw request handlers answering like the sandbox, for unit tests without a server. msw sees
 * `fetch` only, so the client under test needs `fetch`: pass
 * `fetch: (url, init) => globalThis.fetch(url, init)` (looked up per call, so msw's patch
 * applies whenever the client was built).
 *
 * @example
 * const handlers = await claimsHandlers();
 * const server = setupServer(...handlers);
 * server.listen({ onUnhandledRequest: 'error' });
 * const client = new ClaimsClient({
 *   baseUrl: SANDBOX_MSW_BASE_URL,
 *   accessToken: handlers.sandbox.token,
 *   fetch: (url, init) => globalThis.fetch(url, init),
 * });
 * @returns the handlers (one, answering every path under `baseUrl`) and their `sandbox` core.
 * @throws ClaimsError when msw is not installed.
 */
export async function claimsHandlers(options: ClaimsHandlersOptions = {}): Promise<ClaimsHandlers> {
  const http = await loadMsw();
  const core = options.sandbox ?? new SandboxCore(options);
  const base = new URL(options.baseUrl ?? SANDBOX_MSW_BASE_URL);
  const basePath = base.pathname.replace(/\/+$/, '');
  // A pattern rather than msw's path string: msw decodes a path string's segments, and a bad
  // percent-encoding (`/%E0%A4%A`) would fail there instead of reaching the sandbox's own 400.
  const under = new RegExp(`^${escapeRegExp(`${base.origin}${basePath}`)}/`);
  const handler = http.all(under, async ({ request }) => {
    const url = new URL(request.url);
    const head = {
      method: request.method,
      path: url.pathname.slice(basePath.length),
      query: url.searchParams,
      headers: Object.fromEntries(request.headers),
      signal: request.signal,
    };
    let answer: SandboxResponse;
    if (isControlPath(head.path)) {
      try {
        answer = await handleControl(core, {
          ...head,
          body: await readCapped(request, MAX_CONTROL_BODY_BYTES),
        });
      } catch (error) {
        answer = errorResponse(
          error instanceof SandboxHttpError
            ? error
            : new SandboxHttpError(400, 'bad_request', 'The request body could not be read'),
        );
      }
    } else {
      answer = await core.serve(head, (limit) => readCapped(request, limit));
    }
    return respond(answer, request.signal);
  });
  return Object.assign([handler as ClaimsMswHandler], { sandbox: core });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A request's body, at most `limit` bytes: past it, reading stops (413), as the sandbox's server does. */
async function readCapped(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Not awaited: msw's copy of the body may never settle a cancel, and the answer must not wait on it.
      reader.cancel().catch(() => undefined);
      throw payloadTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The core's answer as a fetch `Response`, with what a fault asks of the connection: a network
 * error for a reset (or, after holding, for a time-out), a body that errors mid-way, or one
 * that trickles.
 */
async function respond(answer: SandboxResponse, signal: AbortSignal): Promise<Response> {
  const network = answer.network;
  if (network?.kind === 'reset') return Response.error();
  if (network?.kind === 'hang') {
    await pause(MAX_FAULT_WAIT_MS, signal, true);
    return Response.error();
  }
  const init = { status: answer.status, headers: answer.headers };
  if (network === undefined) return new Response(answer.body ?? null, init);
  const body = Buffer.from(answer.body ?? '');
  const headers = { ...answer.headers, 'content-length': String(body.length) };
  let at = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (network.kind === 'truncate') {
        if (body.length <= network.afterBytes) {
          controller.enqueue(body);
          controller.close();
          return;
        }
        if (network.afterBytes > 0) controller.enqueue(body.subarray(0, network.afterBytes));
        controller.error(new TypeError('terminated: the sandbox cut the answer (a fault)'));
        return;
      }
      if (at > 0 && (await pause(network.everyMs, signal))) return controller.error(new TypeError('aborted'));
      controller.enqueue(body.subarray(at, at + network.bytes));
      at += network.bytes;
      if (at >= body.length) controller.close();
    },
  });
  return new Response(body.length === 0 ? null : stream, { ...init, headers });
}
