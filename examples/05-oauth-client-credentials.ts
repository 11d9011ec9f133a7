// A serverless handler that gets its token from an OAuth 2 token endpoint (client credentials)
// instead of a fixed token, and five warm invocations of it sharing one token.
//
// Reads CLAIMS_BASE_URL, CLAIMS_TOKEN_URL, CLAIMS_CLIENT_ID and CLAIMS_CLIENT_SECRET
// (`npm run demo` sets them to a sandbox with a token endpoint).
import { ClaimsClient } from 'claims-notification-sdk';
import { clientCredentials, TokenRequestError } from 'claims-notification-sdk/auth';

const { CLAIMS_BASE_URL, CLAIMS_TOKEN_URL, CLAIMS_CLIENT_ID, CLAIMS_CLIENT_SECRET } = process.env;
if (!CLAIMS_BASE_URL || !CLAIMS_TOKEN_URL || !CLAIMS_CLIENT_ID || !CLAIMS_CLIENT_SECRET) {
  console.error(
    'Set CLAIMS_BASE_URL, CLAIMS_TOKEN_URL, CLAIMS_CLIENT_ID and CLAIMS_CLIENT_SECRET, or run `npm run demo`.',
  );
  process.exit(2);
}

// Counts the requests to the token endpoint, to show the token is reused.
let tokenRequests = 0;
const countingFetch = (url: string, init: RequestInit) => {
  tokenRequests++;
  return fetch(url, init);
};

// Module level: created once per container, so every warm invocation reuses the token (and
// the keep-alive connections). A handler that built them per invocation would fetch a new
// token every time.
const accessToken = clientCredentials({
  tokenUrl: CLAIMS_TOKEN_URL,
  clientId: CLAIMS_CLIENT_ID,
  clientSecret: CLAIMS_CLIENT_SECRET,
  scope: 'claims:write',
  fetch: countingFetch,
});
const client = new ClaimsClient({ baseUrl: CLAIMS_BASE_URL, accessToken, timeoutMs: 8_000 });

/** Files one incident per invocation. */
export async function handler(description: string): Promise<string> {
  const { incidentId } = await client.incidents.create({
    programmeCode: 'PRG-HOME',
    policyTypeCode: 'HOME-STD',
    policyCountry: 'GB',
    incidentDate: '2026-11-20',
    description,
  });
  return incidentId;
}

for (let invocation = 1; invocation <= 5; invocation++) {
  const incidentId = await handler(`Storm damage, report ${invocation}`);
  console.log(`invocation ${invocation}: filed ${incidentId}`);
}
console.log(`5 invocations, ${tokenRequests} token request(s)`);
if (tokenRequests !== 1) throw new Error(`expected one token request, got ${tokenRequests}`);

// A wrong secret: the error names the endpoint's answer, never the secret.
const wrong = new ClaimsClient({
  baseUrl: CLAIMS_BASE_URL,
  accessToken: clientCredentials({
    tokenUrl: CLAIMS_TOKEN_URL,
    clientId: CLAIMS_CLIENT_ID,
    clientSecret: 'not-it',
  }),
});
try {
  await wrong.metadata.programmes();
  throw new Error('expected the token request to fail');
} catch (error) {
  const cause = error instanceof Error ? error.cause : undefined;
  if (!(cause instanceof TokenRequestError)) throw error;
  console.log(`Wrong secret: ${cause.message}`);
}
