import { errorMessage } from '../internal/error-message.js';
import { WireFailure } from './failure.js';
import type { Wire } from './types.js';
import { loadUndiciAgents } from './undici-agents.js';

/**
 * The client's own undici wire where undici can be loaded, else `instead(cause)` (made once,
 * on the first call that finds undici missing). undici is missing where a bundler left it out
 * of a function's bundle (see undici-agents.ts) and the bundle is deployed without
 * node_modules: the calls that would go to undici (uploads, a busy client's calls are the
 * cold-start wire's to keep on node:http) then go over the platform's own client instead.
 * Once undici loaded, a call costs one boolean test more.
 */
export function undiciOr(
  undici: Wire,
  instead: (cause: unknown) => Wire,
  load: () => Promise<unknown> = loadUndiciAgents,
): Wire {
  let loaded = false;
  let fallback: Wire | undefined;
  const first: Wire = async (req) => {
    if (!fallback) {
      try {
        await load();
        loaded = true;
        return await undici(req);
      } catch (error) {
        if (loaded) throw error;
        fallback = instead(error);
      }
    }
    return fallback(req);
  };
  return (req) => (loaded ? undici(req) : first(req));
}

/**
 * A wire that refuses every call (nothing is sent) because `what` needs undici, which could
 * not be loaded: a proxy or client certificates on an upload cannot be honoured by the
 * platform's own clients here, and sending without them would reach the API another way.
 */
export function needsUndici(what: string, cause: unknown): Wire {
  const message =
    `${what} needs the undici package, which could not be loaded (${errorMessage(cause)}): nothing was sent. ` +
    'Deploy node_modules/undici beside your bundle, or give the client your own dispatcher or fetch';
  return () => Promise.reject(new WireFailure('refused', message, 'not_connected', cause));
}
