import { json, SandboxHttpError } from '../http.js';
import type { RouteHandler } from './context.js';

const QUERY_KEYS = ['programmeCode', 'policyTypeCode', 'countryCode'] as const;

/** GET /metadata/programmes → 200, the seeded programmes (query parameters are ignored). */
export const listProgrammes: RouteHandler = (_req, _params, ctx) =>
  json(200, ctx.metadata.snapshot().programmes);

/**
 * GET /metadata/incidents?programmeCode&policyTypeCode&countryCode → 200, the form's field
 * descriptors; `[]` for a valid combination with no form seeded; 404 for an unknown one.
 */
export const listIncidentFields: RouteHandler = (req, _params, ctx) => {
  const missing = QUERY_KEYS.filter((k) => !req.query.get(k));
  if (missing.length > 0) {
    throw new SandboxHttpError(
      400,
      'missing_parameter',
      `Query parameter(s) required: ${missing.join(', ')}`,
      missing.map((k) => ({ path: k, code: 'required', message: 'is required' })),
    );
  }
  const key = {
    programmeCode: req.query.get('programmeCode') as string,
    policyTypeCode: req.query.get('policyTypeCode') as string,
    countryCode: req.query.get('countryCode') as string,
  };
  const problems = ctx.metadata.keyProblems(key, {
    programmeCode: 'programmeCode',
    policyTypeCode: 'policyTypeCode',
    countryCode: 'countryCode',
  });
  if (problems.length > 0) {
    throw new SandboxHttpError(404, 'not_found', `No incident form: ${problems[0]?.message}`, problems);
  }
  return json(200, ctx.metadata.fields(key));
};
