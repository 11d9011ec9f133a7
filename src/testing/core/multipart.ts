/** One part of a `multipart/form-data` body. */
export interface MultipartPart {
  /** The form name; `''` for the empty names the spec asks for, `undefined` when absent. */
  name: string | undefined;
  filename: string | undefined;
  contentType: string;
  data: Buffer;
}

/** Why a multipart body could not be read. */
export class MultipartError extends Error {
  override name = 'MultipartError';

  /** True when the body is not `multipart/form-data` at all (a 415 rather than a 400). */
  constructor(
    message: string,
    readonly unsupportedType = false,
  ) {
    super(message);
  }
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * Splits a whole `multipart/form-data` body (RFC 7578) into its parts. Written here rather
 * than taken from a library because the sandbox ships with only undici, zod and form-data,
 * and because it must see empty part names (`name=""`) exactly as sent.
 */
export function parseMultipart(body: Uint8Array, contentType: string): MultipartPart[] {
  const boundary = boundaryOf(contentType);
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const delimiter = Buffer.from(`--${boundary}`);
  const next = Buffer.from(`\r\n--${boundary}`);
  let pos = buf.indexOf(delimiter);
  if (pos === -1) throw new MultipartError('no multipart boundary found in the body');
  pos += delimiter.length;
  const parts: MultipartPart[] = [];
  // Each pass consumes at least one boundary, so the loop ends with the buffer.
  while (true) {
    if (buf[pos] === 0x2d && buf[pos + 1] === 0x2d) return parts; // "--": the closing delimiter
    if (!buf.subarray(pos, pos + 2).equals(CRLF)) throw new MultipartError('malformed boundary line');
    // Searched from the boundary's own CRLF, so a part with no headers is found too.
    const headersEnd = buf.indexOf(HEADER_END, pos);
    if (headersEnd === -1) throw new MultipartError('a part has no header block');
    const headerText = buf.subarray(pos + 2, Math.max(pos + 2, headersEnd)).toString('utf8');
    const dataStart = headersEnd + HEADER_END.length;
    const dataEnd = buf.indexOf(next, dataStart);
    if (dataEnd === -1) throw new MultipartError('the body ends before the closing boundary');
    parts.push(partOf(headerText, buf.subarray(dataStart, dataEnd)));
    pos = dataEnd + next.length;
  }
}

function boundaryOf(contentType: string): string {
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    throw new MultipartError('Content-Type must be multipart/form-data', true);
  }
  const boundary = parameters(contentType).get('boundary');
  if (!boundary) throw new MultipartError('Content-Type has no boundary');
  return boundary;
}

function partOf(headerText: string, data: Buffer): MultipartPart {
  const headers = new Map<string, string>();
  for (const line of headerText.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get('content-disposition') ?? '';
  if (!/^form-data\b/i.test(disposition))
    throw new MultipartError('a part lacks Content-Disposition: form-data');
  const params = parameters(disposition);
  return {
    name: params.get('name'),
    filename: params.get('filename*') ?? params.get('filename'),
    contentType: headers.get('content-type') ?? 'application/octet-stream',
    data: Buffer.from(data),
  };
}

/** `; key="value"` parameters of a header, keys lower-cased; `filename*` (RFC 5987) decoded. */
function parameters(header: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const match of header.matchAll(/;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g)) {
    const key = (match[1] as string).toLowerCase();
    const quoted = match[2];
    let value = quoted === undefined ? (match[3] ?? '').trim() : quoted.replace(/\\(.)/g, '$1');
    if (key.endsWith('*')) {
      const encoded = /^[\w-]+'[^']*'(.*)$/.exec(value);
      try {
        value = decodeURIComponent(encoded ? (encoded[1] as string) : value);
      } catch {
        // Not valid percent-encoding: keep the value as sent.
      }
    }
    out.set(key, value);
  }
  return out;
}
