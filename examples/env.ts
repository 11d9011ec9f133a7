// Shared by the examples: one client from CLAIMS_BASE_URL and CLAIMS_TOKEN.
import { ClaimsClient } from 'claims-notification-sdk';

/** The environment every example reads; `npm run demo` sets it to a sandbox. */
export function envOrExit(): { baseUrl: string; token: string } {
  const baseUrl = process.env.CLAIMS_BASE_URL;
  const token = process.env.CLAIMS_TOKEN;
  if (!baseUrl || !token) {
    console.error(
      'Set CLAIMS_BASE_URL and CLAIMS_TOKEN (e.g. from `npx claims-sandbox`), or run `npm run demo`.',
    );
    process.exit(2);
  }
  return { baseUrl, token };
}

/** A client for the API named by the environment. */
export function clientFromEnv(): ClaimsClient {
  const { baseUrl, token } = envOrExit();
  return new ClaimsClient({ baseUrl, accessToken: token, timeoutMs: 10_000 });
}
