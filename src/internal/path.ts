import { ClaimsValidationError } from '../errors.js';

/**
 * A tagged template that URL-encodes every interpolated value, so an id can never change
 * the path: path`/incidents/${id}/events` with id `a/b?c` gives `/incidents/a%2Fb%3Fc/events`.
 *
 * A value of `.` or `..` is refused: encoded or not (`%2E%2E`), a URL parser (fetch's, and
 * many servers') collapses it as a dot segment, so the call would reach another route. The
 * schemas refuse such ids first with a message naming the parameter; this is the last guard.
 */
export function path(strings: TemplateStringsArray, ...values: ReadonlyArray<string | number>): string {
  // A template has one more string than values.
  let out = strings[0] as string;
  for (let i = 0; i < values.length; i++) {
    const value = String(values[i]);
    if (value === '.' || value === '..') {
      throw new ClaimsValidationError([
        {
          path: '',
          message: `a path parameter must not be "${value}" (a URL would drop it as a path segment)`,
        },
      ]);
    }
    out += encodeURIComponent(value) + (strings[i + 1] as string);
  }
  return out;
}
