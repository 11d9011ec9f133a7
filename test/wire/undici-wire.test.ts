import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { ClaimsClient, NotFoundError } from '../../src/index.js';
import { incident } from '../helpers/fixtures.js';

describe('the default undici wire', () => {
  it('goes through the dispatcher a user gives (here a MockAgent): origin, path, headers, body', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const seen: Array<{ path: string; headers: unknown; body: unknown }> = [];
    agent
      .get('https://claims.example.com')
      .intercept({ path: '/api/v2/incidents', method: 'POST' })
      .reply(201, (opts) => {
        seen.push({ path: opts.path, headers: opts.headers, body: opts.body });
        return { incidentId: 'INC-7' };
      });
    agent
      .get('https://claims.example.com')
      .intercept({
        path: '/api/v2/metadata/incidents?programmeCode=P&policyTypeCode=T&countryCode=GB',
        method: 'GET',
      })
      .reply(404, { message: 'no such form' });

    const client = new ClaimsClient({
      baseUrl: 'https://claims.example.com/api/v2/',
      accessToken: 'tok',
      dispatcher: agent,
    });
    await expect(client.incidents.create(incident)).resolves.toEqual({ incidentId: 'INC-7' });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.path).toBe('/api/v2/incidents');
    expect(seen[0]?.headers).toMatchObject({
      authorization: 'Bearer tok',
      'content-type': 'application/json',
    });
    expect(JSON.parse(String(seen[0]?.body))).toEqual(incident);

    await expect(
      client.metadata.incidentFields(
        { programmeCode: 'P', policyTypeCode: 'T', countryCode: 'GB' },
        { maxRetries: 0 },
      ),
    ).rejects.toBeInstanceOf(NotFoundError);
    agent.assertNoPendingInterceptors();
    await agent.close();
  });
});
