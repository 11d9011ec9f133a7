// A serverless function (AWS Lambda behind API Gateway / a function URL, no AWS packages)
// that files an incident from a web form, and a local invocation of it.
import { pathToFileURL } from 'node:url';
import {
  ClaimsApiError,
  ClaimsClient,
  ClaimsValidationError,
  type IncidentCreate,
} from 'claims-notification-sdk';

/** The parts of an API Gateway proxy event this handler reads. */
interface HttpEvent {
  body?: string | null;
  isBase64Encoded?: boolean;
}

interface HttpResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

// Created once per container and reused across invocations (keep-alive connections).
let client: ClaimsClient | undefined;
function claims(): ClaimsClient {
  client ??= new ClaimsClient({
    baseUrl: process.env.CLAIMS_BASE_URL ?? '',
    accessToken: process.env.CLAIMS_TOKEN ?? '',
    timeoutMs: 8_000, // below the function's own timeout
  });
  return client;
}

const reply = (statusCode: number, body: unknown): HttpResult => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** Files the incident in the request body; 201 with its id, 400 / 502 with the reason. */
export const handler = async (event: HttpEvent): Promise<HttpResult> => {
  let form: unknown;
  try {
    const text = event.isBase64Encoded
      ? Buffer.from(event.body ?? '', 'base64').toString('utf8')
      : (event.body ?? '');
    form = JSON.parse(text);
  } catch {
    return reply(400, { message: 'The body must be JSON' });
  }
  try {
    // Unchecked here on purpose: the SDK validates the shape (and the extended fields against
    // the form metadata) and throws ClaimsValidationError before sending anything.
    const { incidentId } = await claims().incidents.create(form as IncidentCreate);
    return reply(201, { incidentId });
  } catch (error) {
    if (error instanceof ClaimsValidationError)
      return reply(400, { message: 'Invalid incident', issues: error.issues });
    if (error instanceof ClaimsApiError)
      return reply(502, { message: `Claims service answered ${error.status}` });
    throw error;
  }
};

// Run directly: invoke the handler as the platform would, twice.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const good = await handler({
    body: JSON.stringify({
      programmeCode: 'PRG-TRAVEL',
      policyTypeCode: 'TRAVEL-SINGLE',
      policyCountry: 'FR',
      incidentDate: '2026-08-14',
      description: 'Suitcase lost on the return flight',
      extendedFields: [
        { identifier: 'travel_claim:Claim_Type', value: 'Baggage' },
        { identifier: 'travel_claim:Destination', value: 'Lisbon' },
      ],
    }),
  });
  console.log(`handler(valid form) -> ${good.statusCode} ${good.body}`);
  if (good.statusCode !== 201) throw new Error('expected 201');

  const bad = await handler({
    body: JSON.stringify({ programmeCode: 'PRG-TRAVEL', incidentDate: 'yesterday' }),
  });
  console.log(`handler(incomplete form) -> ${bad.statusCode} ${bad.body.slice(0, 120)}…`);
  if (bad.statusCode !== 400) throw new Error('expected 400');
}
