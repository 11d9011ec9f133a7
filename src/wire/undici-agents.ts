import type { Agent, EnvHttpProxyAgent } from 'undici';

/** The undici classes a client makes its own dispatchers from (the whole package fits too). */
export interface UndiciAgents {
  readonly Agent: typeof Agent;
  readonly EnvHttpProxyAgent: typeof EnvHttpProxyAgent;
}

/**
 * The specifier in a variable: bundlers (esbuild, Rollup, webpack with the comment) leave such
 * an `import()` to run time, so undici stays out of a user's bundle (521 KiB of 809 in a
 * minified handler, and CommonJS whose `require` of Node's built-ins fails in an ESM bundle).
 * Installed, it is found in node_modules; in a bundle deployed alone it is not, and the client
 * does without it (see `without-undici.ts`).
 */
const UNDICI = 'undici';

/**
 * undici, from its public entry only: a private path may move in any release the `^7` range
 * admits, after our tests ran and on a user's machine, so no test of ours could keep that
 * promise. Loaded on the first request that needs it, never on import: it takes longer to load
 * than the rest of the SDK, a serverless cold start pays for it only once a call needs it (see
 * cold-start-wire.ts), and a client given its own `fetch` never loads it. Loading the index
 * also gives every dispatcher its `request` method.
 */
export function loadUndiciAgents(): Promise<UndiciAgents> {
  // One import for every caller (the cold-start wire's switch, the wires): a missing package
  // stays missing for the life of the process.
  // undici is CommonJS: Node's import() gives its exports as the namespace's named exports
  // (and no bundler sees this import, so it is always Node's).
  loading ??= import(/* webpackIgnore: true */ /* @vite-ignore */ UNDICI) as Promise<UndiciAgents>;
  return loading;
}

let loading: Promise<UndiciAgents> | undefined;
