/**
 * A tagged template that URL-encodes every interpolated value, so an id can never change
 * the path: path`/incidents/${id}/events` with id `a/b?c` gives `/incidents/a%2Fb%3Fc/events`.
 */
export function path(strings: TemplateStringsArray, ...values: ReadonlyArray<string | number>): string {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    out += encodeURIComponent(String(values[i])) + (strings[i + 1] ?? '');
  }
  return out;
}
