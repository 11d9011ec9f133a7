/**
 * From upload items to multipart parts, on every runtime: the list check and each part's header.
 * Free of Node modules, so the Node entry's multipart (`multipart-stream.ts`) and
 * the edge entry's web multipart (`web-multipart.ts`) share it and send the same bytes.
 */
import { ClaimsValidationError, type ValidationIssue } from '../errors.js';
import { type Part, type Source, toPart } from './inputs.js';

/**
 * Checks every item ({@link toPart}) and that no stream is given twice, and returns the parts.
 * `refuse` says why a source cannot be read on this runtime (the edge build: paths and Node
 * streams), or nothing when it can.
 * @throws ClaimsValidationError listing every problem, each at `issuePath(i)`.
 */
export function checkItems(
  items: readonly unknown[],
  issuePath: (index: number) => string,
  refuse: (source: Source) => string | undefined = () => undefined,
): Part[] {
  const issues: ValidationIssue[] = [];
  const parts: Part[] = [];
  const oneShot = new Set<unknown>();
  for (const [i, item] of items.entries()) {
    const part = toPart(item);
    if (Array.isArray(part)) {
      for (const message of part) issues.push({ path: issuePath(i), message });
      continue;
    }
    const refused = refuse(part.source);
    if (refused !== undefined) {
      issues.push({ path: issuePath(i), message: refused });
      continue;
    }
    const { source } = part;
    if (source.kind === 'readable' || source.kind === 'web') {
      if (oneShot.has(source.stream)) {
        issues.push({
          path: issuePath(i),
          message: 'the same stream is given twice; it can be read only once',
        });
      }
      oneShot.add(source.stream);
    }
    parts.push(part);
  }
  if (issues.length > 0) throw new ClaimsValidationError(issues);
  return parts;
}

/** A part's opening lines, from its boundary line to the blank line before its bytes. */
export function partHeader(boundary: string, part: Part): string {
  return (
    `--${boundary}\r\nContent-Disposition: ${contentDisposition(part.filename)}\r\n` +
    `Content-Type: ${part.contentType}\r\n\r\n`
  );
}

/**
 * The part's `Content-Disposition`: form name empty (spec 4.1). `filename` is quoted the way
 * browsers do it (UTF-8, `"` as `%22`), which servers read back inconsistently for anything
 * beyond plain ASCII: busboy reads it as latin1, nothing turns `%22` back into a quote. So a
 * name that is not plain ASCII also gets an RFC 5987 `filename*`, which busboy, ASP.NET,
 * Go and Python parsers prefer and decode exactly.
 */
export function contentDisposition(filename: string): string {
  const quoted = filename.replace(/"/g, '%22');
  const header = `form-data; name=""; filename="${quoted}"`;
  if (/^[\x20-\x7e]*$/.test(filename) && !/["%\\]/.test(filename)) return header;
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${header}; filename*=UTF-8''${encoded}`;
}

/**
 * A fresh boundary per body: 26 dashes and 24 random hex digits (form-data's shape, which
 * the SDK used before it wrote its own multipart), never found in a part by chance.
 */
export function newBoundary(): string {
  const random = crypto.getRandomValues(new Uint8Array(12));
  let hex = '';
  for (const byte of random) hex += byte.toString(16).padStart(2, '0');
  return `${'-'.repeat(26)}${hex}`;
}
