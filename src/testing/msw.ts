import { ClaimsError } from '../errors.js';
import { SandboxCore, type SandboxCoreOptions } from './core/sandbox-core.js';

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
  all(path: string, resolver: (info: { request: Request }) => Promise<Response>): unknown;
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
  const handler = http.all(`${base.origin}${basePath}/*`, async ({ request }) => {
    const url = new URL(request.url);
    const answer = await core.handle({
      method: request.method,
      path: url.pathname.slice(basePath.length),
      query: url.searchParams,
      headers: Object.fromEntries(request.headers),
      body: new Uint8Array(await request.arrayBuffer()),
    });
    return new Response(answer.body ?? null, { status: answer.status, headers: answer.headers });
  });
  return Object.assign([handler as ClaimsMswHandler], { sandbox: core });
}
