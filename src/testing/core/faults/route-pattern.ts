import { API_ROUTES } from '../router.js';

/** The token endpoint's name, as calls and faults name it (only served with `oauth`). */
export const TOKEN_ROUTE = 'POST /oauth/token';

/** Every route a fault may name, in the order the inspector lists them. */
export const FAULT_ROUTES: readonly string[] = [...API_ROUTES.map((r) => r.name), TOKEN_ROUTE];

/** A parsed fault route: the method and each segment, `undefined` for a wildcard (`{id}`, `:id`). */
export interface RoutePattern {
  method: string;
  segments: Array<string | undefined>;
}

/** The route templates, as patterns over their own segments (a parameter is a wildcard). */
const TEMPLATES: readonly RoutePattern[] = FAULT_ROUTES.map((name) => parsePattern(name) as RoutePattern);

/**
 * Reads `'POST /incidents/{incidentId}/events'` (or a concrete path) into a pattern, or says
 * why it is not one: the words before any lookup, so a typo is named at once.
 */
export function parseRoute(text: string): RoutePattern | string {
  const pattern = parsePattern(text);
  if (pattern === undefined) return 'must be "METHOD /path", e.g. "POST /incidents"';
  const known = TEMPLATES.some(
    (t) =>
      t.method === pattern.method &&
      t.segments.length === pattern.segments.length &&
      t.segments.every((part, i) => {
        const wanted = pattern.segments[i];
        return part === undefined || wanted === undefined || part === wanted.toLowerCase();
      }),
  );
  return known ? pattern : `no route "${text.trim()}"; the routes are: ${FAULT_ROUTES.join(', ')}`;
}

function parsePattern(text: string): RoutePattern | undefined {
  const found = /^\s*([A-Za-z]+)\s+(\/\S*)\s*$/.exec(text);
  if (!found) return undefined;
  const segments = (found[2] as string)
    .split('/')
    .filter(Boolean)
    .map((segment) => (/^(\{[^{}]*\}|:.*)$/.test(segment) ? undefined : safeDecode(segment)));
  return { method: (found[1] as string).toUpperCase(), segments };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Whether a call fits a pattern. `template` is the call's route (its parameters start with
 * `:`), `segments` its decoded path: a literal of the pattern matches a route word in any case
 * (as the router does) and a parameter's value exactly.
 */
export function routeMatches(
  pattern: RoutePattern,
  method: string,
  template: readonly string[],
  segments: readonly string[],
): boolean {
  if (pattern.method !== method.toUpperCase() || pattern.segments.length !== segments.length) return false;
  return pattern.segments.every((wanted, i) => {
    if (wanted === undefined) return true;
    const actual = segments[i] as string;
    return template[i]?.startsWith(':') ? wanted === actual : wanted.toLowerCase() === actual.toLowerCase();
  });
}
