import { ClaimsClient } from '../platform/node.js';
import { UsageError } from './exit-codes.js';

/** The client the CLI uses: `CLAIMS_BASE_URL` and `CLAIMS_TOKEN` from the environment. */
export function clientFromEnv(env: NodeJS.ProcessEnv = process.env): ClaimsClient {
  const baseUrl = env.CLAIMS_BASE_URL;
  const accessToken = env.CLAIMS_TOKEN;
  const missing = [!baseUrl && 'CLAIMS_BASE_URL', !accessToken && 'CLAIMS_TOKEN'].filter(Boolean);
  if (missing.length > 0) throw new UsageError(`set ${missing.join(' and ')} in the environment`);
  return new ClaimsClient({
    baseUrl: baseUrl as string,
    accessToken: accessToken as string,
    userAgent: 'claims-cli',
  });
}
