import { errorMessage } from '../../internal/error-message.js';
import { sameSecret } from '../../internal/same-secret.js';
import { errorResponse, SandboxHttpError } from './http.js';
import { uploadAttachments } from './routes/attachments.js';
import type { RouteHandler, SandboxContext } from './routes/context.js';
import { createEvent, createIncident } from './routes/incidents.js';
import { listIncidentFields, listProgrammes } from './routes/metadata.js';
import {
  createSubscription,
  createWebhook,
  listSubscriptions,
  updateSubscription,
  updateWebhook,
} from './routes/webhooks.js';
import type { SandboxRequest, SandboxResponse } from './types.js';

interface Route {
  method: string;
  /** Path segments; `:` marks a parameter. Literal segments match case-insensitively. */
  segments: string[];
  handler: RouteHandler;
}

const route = (method: string, path: string, handler: RouteHandler): Route => ({
  method,
  segments: path.split('/').filter(Boolean),
  handler,
});

const ROUTES: Route[] = [
  route('POST', '/attachments', uploadAttachments),
  route('POST', '/incidents', createIncident),
  route('POST', '/incidents/:incidentId/events', createEvent),
  route('GET', '/metadata/incidents', listIncidentFields),
  route('GET', '/metadata/programmes', listProgrammes),
  route('POST', '/webhooks', createWebhook),
  route('PATCH', '/webhooks/:webhookId', updateWebhook),
  route('POST', '/webhooks/:webhookId/subscriptions', createSubscription),
  route('GET', '/webhooks/:webhookId/subscriptions', listSubscriptions),
  route('PATCH', '/webhooks/:webhookId/subscriptions/:subscriptionId', updateSubscription),
];

/**
 * Answers one request: bearer auth first (every operation needs it, spec 5), then the route.
 * Never throws: every failure becomes the one JSON error body.
 */
export async function dispatch(
  req: SandboxRequest,
  ctx: SandboxContext,
  token: string,
): Promise<SandboxResponse> {
  try {
    if (!authorised(req.headers.authorization, token)) {
      throw new SandboxHttpError(401, 'unauthorized', 'Missing or invalid bearer token', undefined, {
        'www-authenticate': 'Bearer realm="claims-sandbox"',
      });
    }
    const segments = splitPath(req.path);
    const matching = ROUTES.map((r) => ({ route: r, params: match(r.segments, segments) })).filter(
      (m) => m.params !== undefined,
    );
    const found = matching.find((m) => m.route.method === req.method.toUpperCase());
    if (!found) {
      if (matching.length === 0)
        throw new SandboxHttpError(404, 'not_found', `No route ${req.method} ${req.path}`);
      const allow = matching.map((m) => m.route.method).join(', ');
      throw new SandboxHttpError(
        405,
        'method_not_allowed',
        `${req.method} is not allowed here (use ${allow})`,
        undefined,
        {
          allow,
        },
      );
    }
    return await found.route.handler(req, found.params as string[], ctx);
  } catch (error) {
    if (error instanceof SandboxHttpError) return errorResponse(error);
    const message = errorMessage(error);
    return errorResponse(new SandboxHttpError(500, 'internal_error', `Sandbox failure: ${message}`));
  }
}

function splitPath(path: string): string[] {
  return path
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        throw new SandboxHttpError(400, 'invalid_path', `Bad percent-encoding in path segment "${segment}"`);
      }
    });
}

/** The parameters when the path fits the pattern (the spec's `/Incidents` = `/incidents`). */
function match(pattern: string[], segments: string[]): string[] | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: string[] = [];
  for (const [i, part] of pattern.entries()) {
    const segment = segments[i] as string;
    if (part.startsWith(':')) params.push(segment);
    else if (part.toLowerCase() !== segment.toLowerCase()) return undefined;
  }
  return params;
}

/** `Bearer <token>`, compared in constant time (hashes of equal length, whatever the input). */
function authorised(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? '');
  if (!match) return false;
  return sameSecret(match[1] as string, token);
}
