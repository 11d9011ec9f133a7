import type { Agent, EnvHttpProxyAgent } from 'undici';

/** The undici classes a client makes its own dispatchers from (the whole package fits too). */
export interface UndiciAgents {
  readonly Agent: typeof Agent;
  readonly EnvHttpProxyAgent: typeof EnvHttpProxyAgent;
}

/**
 * undici, from its public entry only: a private path may move in any release the `^7` range
 * admits, after our tests ran and on a user's machine, so no test of ours could keep that
 * promise. Loaded on the first request that needs it, never on import: it takes longer to load
 * than the rest of the SDK, a serverless cold start pays for it only once a call needs it (see
 * cold-start-wire.ts), and a client given its own `fetch` never loads it. Loading the index
 * also gives every dispatcher its `request` method.
 */
export async function loadUndiciAgents(): Promise<UndiciAgents> {
  const undici = await import('undici');
  // The CommonJS module as ESM: its exports are the namespace's, or its default's in a bundle.
  return (undici as { default?: UndiciAgents }).default ?? undici;
}
