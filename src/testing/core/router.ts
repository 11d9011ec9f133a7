import { sameSecret } from '../../internal/same-secret.js';
import { SandboxHttpError } from './http.js';
import { uploadAttachments } from './routes/attachments.js';
import type { RouteHandler } from './routes/context.js';
import { createEvent, createIncident } from './routes/incidents.js';
import { listIncidentFields, listProgrammes } from './routes/metadata.js';
import {
  createSubscription,
  createWebhook,
  listSubscriptions,
  updateSubscription,
  updateWebhook,
} from './routes/webhooks.js';

/** One operation of the API as the sandbox serves it. */
export interface ApiRoute {
  /** `'POST /incidents/{incidentId}/events'`: how calls and faults name it. */
  name: string;
  method: string;
  /** Path segments; `:` marks a parameter. Literal segments match case-insensitively. */
  segments: string[];
  handler: RouteHandler;
  /** True for the multipart upload, whose body limit and parallelism differ. */
  upload: boolean;
}

const route = (method: string, path: string, handler: RouteHandler, upload = false): ApiRoute => ({
  name: `${method} ${path.replace(/:(\w+)/g, '{$1}')}`,
  method,
  segments: path.split('/').filter(Boolean),
  handler,
  upload,
});

/** Every operation, in the spec's order, the sandbox-only `POST /webhooks` included. */
export const API_ROUTES: readonly ApiRoute[] = [
  route('POST', '/attachments', uploadAttachments, true),
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

/** The operation a request is for, with its path's parameters and segments. */
export interface FoundRoute {
  route: ApiRoute;
  params: string[];
  /** The request path's segments, percent-decoded. */
  segments: string[];
}

/**
 * The operation for a method and path.
 * @throws SandboxHttpError 400 for bad percent-encoding, 404 for an unknown path, 405 (with
 * `Allow`) for a known path with another method.
 */
export function findRoute(method: string, path: string): FoundRoute {
  const segments = splitPath(path);
  const matching = API_ROUTES.map((r) => ({ route: r, params: match(r.segments, segments) })).filter(
    (m) => m.params !== undefined,
  );
  const found = matching.find((m) => m.route.method === method.toUpperCase());
  if (found) return { route: found.route, params: found.params as string[], segments };
  if (matching.length === 0) throw new SandboxHttpError(404, 'not_found', `No route ${method} ${path}`);
  const allow = matching.map((m) => m.route.method).join(', ');
  throw new SandboxHttpError(
    405,
    'method_not_allowed',
    `${method} is not allowed here (use ${allow})`,
    undefined,
    {
      allow,
    },
  );
}

/** The path's segments, percent-decoded; empty segments dropped (`//incidents` = `/incidents`). */
export function splitPath(path: string): string[] {
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
export function bearerMatches(header: string | undefined, token: string): boolean {
  const found = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? '');
  if (!found) return false;
  return sameSecret(found[1] as string, token);
}
