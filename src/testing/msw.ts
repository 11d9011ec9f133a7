import { createRequire } from 'node:module';
import type { HttpHandler } from 'msw';
import { ClaimsError } from '../errors.js';
import { SandboxCore, type SandboxCoreOptions } from './core/sandbox-core.js';

/** Options of {@link claimsHandlers}. */
export interface ClaimsHandlersOptions extends SandboxCoreOptions {
  /** The base URL the handlers answer under; give the same to `ClaimsClient`. @default 'https://claims.sandbox.test' */
  baseUrl?: string;
  /** A core to serve (e.g. `sandbox.core`, to share state); otherwise a new one from these options. */
  sandbox?: SandboxCore;
}

/** msw request handlers, with the sandbox core they serve (for its token, deliveries and seed). */
export type ClaimsHandlers = HttpHandler[] & { sandbox: SandboxCore };

/** The default base URL of {@link claimsHandlers}. */
export const SANDBOX_MSW_BASE_URL = 'https://claims.sandbox.test';

type Msw = Pick<typeof import('msw'), 'http'>;

/**
 * msw is an optional peer dependency, so it is loaded only when handlers are asked for:
 * importing `claims-notification-sdk/testing` (and `createSandbox`) works without it.
 * `require` resolves to the same module instance as the user's `import 'msw'` (Node's
 * `module-sync` condition), and msw recognises handlers by kind, not by class, anyway.
 */
function loadMsw(): Msw {
  const load = typeof require === 'function' ? require : createRequire(import.meta.url);
  try {
    return load('msw') as Msw;
  } catch (error) {
    throw new ClaimsError('claimsHandlers() needs msw: install it with `npm install --save-dev msw`', {
      cause: error,
    });
  }
}

/**
 * msw request handlers answering like the sandbox, for unit tests without a server. msw sees
 * `fetch` only, so the client under test needs `fetch: globalThis.fetch`.
 *
 * @example
 * const handlers = claimsHandlers();
 * const server = setupServer(...handlers);
 * server.listen({ onUnhandledRequest: 'error' });
 * const client = new ClaimsClient({ baseUrl: SANDBOX_MSW_BASE_URL, accessToken: handlers.sandbox.token, fetch: globalThis.fetch });
 */
export function claimsHandlers(options: ClaimsHandlersOptions = {}): ClaimsHandlers {
  const { http } = loadMsw();
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
  return Object.assign([handler], { sandbox: core });
}
