import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONTROL_PREFIX } from '../core/control-routes.js';
import { errorResponse, SandboxHttpError } from '../core/http.js';
import type { SandboxCore } from '../core/sandbox-core.js';
import { INSPECTOR_CSS } from '../inspector/page-css.js';
import { INSPECTOR_HTML } from '../inspector/page-html.js';
import { INSPECTOR_JS } from '../inspector/page-script.js';
import type { InspectorEvents } from './event-stream.js';

/** Sent with everything under `/_sandbox/`: no framing (clickjacking of the fault controls), no sniffing, no referrer. */
export const GUARD_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

/** The page runs only its own script and style, and talks only to its own origin. */
const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const ASSETS: Record<string, { type: string; body: string }> = {
  '': { type: 'text/html; charset=utf-8', body: INSPECTOR_HTML },
  'inspector.js': { type: 'text/javascript; charset=utf-8', body: INSPECTOR_JS },
  'inspector.css': { type: 'text/css; charset=utf-8', body: INSPECTOR_CSS },
};

/**
 * Serves what only a browser needs under `/_sandbox/`: the page and its files, the live feed,
 * attachment downloads. Returns false for anything else (the core's control routes answer it).
 */
export function serveInspector(
  core: SandboxCore,
  events: InspectorEvents,
  method: string,
  path: string,
  res: ServerResponse,
): boolean {
  const rest = path.slice(CONTROL_PREFIX.length);
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (rest === '') {
    res.writeHead(308, { ...GUARD_HEADERS, location: `${CONTROL_PREFIX}/` });
    res.end();
    return true;
  }
  const asset = ASSETS[rest.slice(1)];
  if (asset) {
    res.writeHead(200, {
      ...GUARD_HEADERS,
      'content-type': asset.type,
      'content-security-policy': PAGE_POLICY,
      'cache-control': 'no-cache',
    });
    res.end(method === 'HEAD' ? undefined : asset.body);
    return true;
  }
  if (rest === '/events') {
    events.attach(res, GUARD_HEADERS);
    return true;
  }
  const download = /^\/attachments\/([^/]+)$/.exec(rest);
  if (download) {
    sendAttachment(core, decodeSegment(download[1] as string), res);
    return true;
  }
  return false;
}

/**
 * An attachment's bytes, always as a download: never shown inline, so a file uploaded as HTML
 * cannot run on the inspector's origin.
 */
function sendAttachment(core: SandboxCore, attachmentId: string, res: ServerResponse): void {
  const attachment = core.attachment(attachmentId);
  if (!attachment?.data) {
    const answer = errorResponse(
      new SandboxHttpError(
        404,
        'not_found',
        attachment
          ? `Attachment "${attachmentId}" is ${attachment.status}`
          : `No attachment "${attachmentId}"`,
      ),
    );
    res.writeHead(answer.status, { ...GUARD_HEADERS, ...answer.headers });
    res.end(answer.body);
    return;
  }
  const ascii = attachment.filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  res.writeHead(200, {
    ...GUARD_HEADERS,
    'content-type': 'application/octet-stream',
    'content-length': String(attachment.data.length),
    'content-disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${rfc5987(attachment.filename)}`,
    'content-security-policy': "sandbox; default-src 'none'",
    'cache-control': 'no-store',
  });
  res.end(attachment.data);
}

/** RFC 5987 percent-encoding (`encodeURIComponent` leaves `'()*`, which it does not allow). */
function rfc5987(text: string): string {
  return encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Answers a request the host rule refused, saying why (never echoing the request's own headers). */
export function refuse(res: ServerResponse, _req: IncomingMessage, error: SandboxHttpError): void {
  const answer = errorResponse(error);
  res.writeHead(answer.status, { ...GUARD_HEADERS, ...answer.headers, connection: 'close' });
  res.end(answer.body);
}
