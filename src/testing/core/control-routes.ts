import { ClaimsValidationError } from '../../errors.js';
import { errorMessage } from '../../internal/error-message.js';
import { errorResponse, json, SandboxHttpError } from './http.js';
import { deliveryView, faultsView, incidentDetail, inspectorState } from './inspector-view.js';
import { splitPath } from './router.js';
import type { SandboxCore } from './sandbox-core.js';
import type { SandboxRequest, SandboxResponse } from './types.js';

/** Where the sandbox's own routes live: no API token, and (over HTTP) loopback and same-origin only. */
export const CONTROL_PREFIX = '/_sandbox';
/** Largest body a control route reads (a fault rule is small). */
export const MAX_CONTROL_BODY_BYTES = 64 * 1024;

/** True for a path under {@link CONTROL_PREFIX} (any case, as the API's own routes). */
export function isControlPath(path: string): boolean {
  const lower = path.toLowerCase();
  return lower === CONTROL_PREFIX || lower.startsWith(`${CONTROL_PREFIX}/`);
}

type ControlHandler = (
  core: SandboxCore,
  req: SandboxRequest,
  params: string[],
) => SandboxResponse | Promise<SandboxResponse>;

const ROUTES: ReadonlyArray<[method: string, path: string, handler: ControlHandler]> = [
  ['GET', 'state', (core) => json(200, inspectorState(core))],
  ['GET', 'calls', (core) => json(200, { calls: core.calls })],
  ['GET', 'calls/:id', (core, _req, [id]) => json(200, found(core.call(Number(id)), `call ${id}`))],
  [
    'GET',
    'incidents/:id',
    (core, _req, [id]) =>
      json(200, incidentDetail(core, found(core.incident(id as string), `incident "${id}"`))),
  ],
  [
    'GET',
    'deliveries/:id',
    (core, _req, [id]) => {
      const attempts = core.deliveries.filter((d) => d.deliveryId === id);
      found(attempts[0], `delivery "${id}"`);
      return json(200, { attempts: attempts.map((d) => deliveryView(core, d)) });
    },
  ],
  ['GET', 'faults', (core) => json(200, { faults: faultsView(core) })],
  [
    'POST',
    'faults',
    (core, req) => {
      const rule = jsonBody(req);
      try {
        core.faults.next(rule as Parameters<SandboxCore['faults']['next']>[0]);
      } catch (error) {
        if (!(error instanceof ClaimsValidationError)) throw error;
        throw new SandboxHttpError(
          400,
          'invalid_fault',
          error.message,
          error.issues.map((i) => ({ path: i.path, code: 'invalid', message: i.message })),
        );
      }
      return json(201, { faults: faultsView(core) });
    },
  ],
  [
    'DELETE',
    'faults',
    (core) => {
      core.faults.clear();
      return json(200, { faults: [] });
    },
  ],
  [
    'POST',
    'reset',
    (core) => {
      core.reset();
      return json(200, { reset: true });
    },
  ],
  [
    'POST',
    'deliveries/:id/redeliver',
    async (core, _req, [id]) => json(200, deliveryView(core, await core.redeliver(id as string))),
  ],
];

/**
 * Answers a request under `/_sandbox/`: the inspector's data and controls, for the page and
 * for tests in any language (`POST /_sandbox/faults`, `POST /_sandbox/reset`,
 * `POST /_sandbox/deliveries/{id}/redeliver`, `GET /_sandbox/calls`…). Takes no token: the
 * server in front decides who may ask. Never rejects.
 */
export async function handleControl(core: SandboxCore, req: SandboxRequest): Promise<SandboxResponse> {
  try {
    const segments = splitPath(req.path).slice(1);
    const matching = ROUTES.filter(([, path]) => fits(path, segments));
    const route = matching.find(([method]) => method === req.method.toUpperCase());
    if (!route) {
      if (matching.length === 0)
        throw new SandboxHttpError(404, 'not_found', `No route ${req.method} ${req.path}`);
      const allow = matching.map(([method]) => method).join(', ');
      throw new SandboxHttpError(
        405,
        'method_not_allowed',
        `${req.method} is not allowed here (use ${allow})`,
        undefined,
        { allow },
      );
    }
    const params = route[1]
      .split('/')
      .flatMap((part, i) => (part.startsWith(':') ? [segments[i] as string] : []));
    const answer = await route[2](core, req, params);
    return { ...answer, headers: { ...answer.headers, 'cache-control': 'no-store' } };
  } catch (error) {
    return errorResponse(
      error instanceof SandboxHttpError
        ? error
        : new SandboxHttpError(500, 'internal_error', `Sandbox failure: ${errorMessage(error)}`),
    );
  }
}

function fits(path: string, segments: string[]): boolean {
  const parts = path.split('/');
  return (
    parts.length === segments.length &&
    parts.every((part, i) => part.startsWith(':') || part === segments[i]?.toLowerCase())
  );
}

function found<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new SandboxHttpError(404, 'not_found', `No ${what}`);
  return value;
}

/** A control route's JSON body; JSON only, which a cross-site form cannot send. */
function jsonBody(req: SandboxRequest): unknown {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    throw new SandboxHttpError(
      415,
      'unsupported_media_type',
      'The body must be JSON (Content-Type: application/json)',
    );
  }
  try {
    return JSON.parse(Buffer.from(req.body).toString('utf8'));
  } catch {
    throw new SandboxHttpError(400, 'invalid_json', 'The body is not valid JSON');
  }
}
