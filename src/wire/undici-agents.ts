import type { Agent, Dispatcher, EnvHttpProxyAgent } from 'undici';

/** The undici classes a client makes its own dispatchers from (the whole package fits too). */
export interface UndiciAgents {
  readonly Agent: typeof Agent;
  readonly EnvHttpProxyAgent: typeof EnvHttpProxyAgent;
}

/**
 * undici's `Dispatcher#request`, called on a dispatcher: undici's index adds it to every
 * dispatcher's prototype, which loading the agents alone does not (and the SDK leaves undici's
 * classes as it finds them).
 */
export type DispatcherRequest = (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

/**
 * undici's `Agent`, `EnvHttpProxyAgent` and `request`, from their own modules rather than the package's
 * index: the index also loads fetch, WebSocket, the cache, EventSource and the mocks, which the
 * SDK never uses. A serverless bundle is then some 230 KiB smaller (undici 523 → 296 KiB with
 * esbuild, minified), and every cold start compiles that much less. undici 7 has no `exports`
 * map, so these paths resolve in Node and in bundlers; `test/pinned/undici-deep-imports.test.ts`
 * fails if an undici update moves them (its version range is kept to patches for that reason).
 */
export async function loadUndiciAgents(): Promise<UndiciAgents & { request: DispatcherRequest }> {
  const [agent, proxy, request] = await Promise.all([
    import('undici/lib/dispatcher/agent.js'),
    import('undici/lib/dispatcher/env-http-proxy-agent.js'),
    import('undici/lib/api/api-request.js'),
  ]);
  return { Agent: agent.default, EnvHttpProxyAgent: proxy.default, request: request.default };
}
