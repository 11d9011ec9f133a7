/**
 * A Node client on a scripted `fetch` whose calls record the name their span would get
 * (`GET /webhooks/{webhookId}/subscriptions`): the route template each resource gives, without
 * an OpenTelemetry provider.
 */
import { ClaimsClientBase, type ClaimsClientOptions } from '../../src/client.js';
import { nodePlatform } from '../../src/platform/node.js';
import type { FetchLike } from '../../src/wire/fetch-wire.js';

export function routeNamingClient(
  fetch: FetchLike,
  options: Partial<ClaimsClientOptions> = {},
): { client: ClaimsClientBase; routes: string[] } {
  const routes: string[] = [];
  const client = new ClaimsClientBase(
    { baseUrl: 'https://claims.test/api', accessToken: 'tok', maxRetries: 0, fetch, ...options },
    {
      ...nodePlatform,
      trace: (method, route) => {
        routes.push(`${method} ${route}`);
        return undefined;
      },
    },
  );
  return { client, routes };
}
