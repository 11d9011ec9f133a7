import { clientCredentials } from '../auth/client-credentials.js';
import { ClaimsClient } from '../platform/node.js';
import { UsageError } from './exit-codes.js';

const OAUTH = ['CLAIMS_TOKEN_URL', 'CLAIMS_CLIENT_ID', 'CLAIMS_CLIENT_SECRET'] as const;

/** The clients made for the command running now: closed when it ends (see `closeClients`). */
const opened = new Set<ClaimsClient>();

/**
 * Closes every client made by `clientFromEnv` since the last call: a command ends with its
 * connections closed, whichever way it ended, so the process exits at once instead of waiting
 * on idle keep-alive sockets, and an in-process run leaves nothing open.
 */
export async function closeClients(): Promise<void> {
  const clients = [...opened];
  opened.clear();
  await Promise.allSettled(clients.map((client) => client.close()));
}

/**
 * The client the CLI uses: `CLAIMS_BASE_URL`, then either a static `CLAIMS_TOKEN`, or OAuth 2
 * client credentials (`CLAIMS_TOKEN_URL`, `CLAIMS_CLIENT_ID`, `CLAIMS_CLIENT_SECRET`, optional
 * `CLAIMS_SCOPE`) through the SDK's own provider, which renews the token before it expires and
 * after a 401: a batch longer than a token's life does not fail half-way. Both kinds at once,
 * or an incomplete set, is bad usage. No value is ever printed.
 */
export function clientFromEnv(env: NodeJS.ProcessEnv = process.env): ClaimsClient {
  const baseUrl = env.CLAIMS_BASE_URL;
  const token = env.CLAIMS_TOKEN;
  const oauth = OAUTH.filter((name) => env[name]);
  if (token && (oauth.length > 0 || env.CLAIMS_SCOPE)) {
    throw new UsageError(`set either CLAIMS_TOKEN or the client credentials (${OAUTH.join(', ')}), not both`);
  }
  const missing: string[] = baseUrl ? [] : ['CLAIMS_BASE_URL'];
  if (!token) {
    if (oauth.length === 0 && !env.CLAIMS_SCOPE) missing.push(`CLAIMS_TOKEN (or ${OAUTH.join(', ')})`);
    else missing.push(...OAUTH.filter((name) => !env[name]));
  }
  if (missing.length > 0) throw new UsageError(`set ${missing.join(' and ')} in the environment`);
  const scope = env.CLAIMS_SCOPE?.split(/[\s,]+/).filter(Boolean);
  const client = new ClaimsClient({
    baseUrl: baseUrl as string,
    accessToken: token
      ? token
      : clientCredentials({
          tokenUrl: env.CLAIMS_TOKEN_URL as string,
          clientId: env.CLAIMS_CLIENT_ID as string,
          clientSecret: env.CLAIMS_CLIENT_SECRET as string,
          ...(scope && scope.length > 0 ? { scope } : {}),
        }),
    userAgent: 'claims-cli',
  });
  opened.add(client);
  return client;
}
