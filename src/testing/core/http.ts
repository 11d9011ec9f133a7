import { randomUUID } from 'node:crypto';
import type { ZodType } from 'zod';
import { ClaimsError } from '../../errors.js';
import { formatPath } from '../../internal/validate.js';
import type { SandboxErrorBody, SandboxErrorDetail, SandboxRequest, SandboxResponse } from './types.js';

/**
 * Thrown inside the core to answer with an error; the dispatcher turns it into the one error
 * body shape. It never leaves the sandbox.
 */
export class SandboxHttpError extends ClaimsError {
  override name = 'SandboxHttpError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: SandboxErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A 422 `validation_failed` listing every problem found. */
export function validationFailed(details: SandboxErrorDetail[]): SandboxHttpError {
  const summary = details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ');
  return new SandboxHttpError(422, 'validation_failed', `Validation failed: ${summary}`, details);
}

/** A JSON answer; `body: undefined` sends an empty body. */
export function json(status: number, body?: unknown, headers: Record<string, string> = {}): SandboxResponse {
  return {
    status,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }),
      'x-request-id': randomUUID(),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  };
}

/** The answer for a thrown {@link SandboxHttpError}. */
export function errorResponse(error: SandboxHttpError): SandboxResponse {
  const body: SandboxErrorBody = { message: error.message, code: error.code };
  if (error.details) body.details = error.details;
  return json(error.status, body, error.headers);
}

/** Parses a JSON request body into an object, checked with `schema` (422 listing every issue). */
export function readJson<T>(req: SandboxRequest, schema: ZodType<T>): T {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new SandboxHttpError(
      415,
      'unsupported_media_type',
      'The body must be JSON (Content-Type: application/json)',
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(req.body).toString('utf8'));
  } catch {
    throw new SandboxHttpError(400, 'invalid_json', 'The body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SandboxHttpError(400, 'invalid_json', 'The body must be a JSON object');
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationFailed(
    result.error.issues.map((issue) => ({
      path: formatPath('', issue.path),
      code: 'invalid',
      message: issue.message,
    })),
  );
}
