/**
 * The 401 rule with a token FUNCTION: only a 401 makes the SDK ask the provider again and send
 * the request again, once; any other error answer neither fetches a token nor re-sends a POST.
 * The refresh does not use up one of the call's retries.
 */
import { describe, expect, it } from 'vitest';
import { ClaimsApiError, ClaimsClient } from '../../src/index.js';
import { WIRES } from '../faults/fault-server.js';
import { incident } from '../helpers/fixtures.js';
import { json, useRecordingServer } from '../helpers/recording-server.js';

const server = useRecordingServer();

function counted(): { provider: () => Promise<string>; calls: () => number } {
  let n = 0;
  return {
    provider: async () => {
      n++;
      return `tok-${n}`;
    },
    calls: () => n,
  };
}

describe.each(WIRES)('token function, $name', ({ options }) => {
  const client = (accessToken: () => Promise<string>, maxRetries = 2) =>
    new ClaimsClient({ baseUrl: server.url, accessToken, maxRetries, timeoutMs: 5_000, ...options });

  it.each([500, 409, 422, 403, 503])(
    'a POST answered %i is sent once and the provider asked once',
    async (status) => {
      server.handle((_r, res) => json(res, status, { message: 'no' }));
      const token = counted();
      const error = await client(token.provider)
        .incidents.create(incident)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsApiError);
      expect((error as ClaimsApiError).status).toBe(status);
      expect(server.requests).toHaveLength(1);
      expect(token.calls()).toBe(1);
    },
  );

  it('a POST answered 401 asks the provider once more and is sent once more with the new token', async () => {
    server.handle((_r, res) => json(res, 401, { message: 'expired' }));
    const token = counted();
    const error = await client(token.provider)
      .incidents.create(incident)
      .catch((e: unknown) => e);
    expect((error as ClaimsApiError).status).toBe(401);
    expect(token.calls()).toBe(2);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
  });

  it('a 401 then 201 resolves with the second token', async () => {
    server.handle((_r, res) =>
      server.requests.length === 1 ? json(res, 401, {}) : json(res, 201, { incidentId: 'inc-1' }),
    );
    const token = counted();
    const created = await client(token.provider, 0).incidents.create(incident);
    expect(created.incidentId).toBe('inc-1');
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
  });

  it('the 401 refresh does not use up a retry: 401, 503, 200 succeeds with maxRetries 1', async () => {
    const answers = [401, 503, 200];
    server.handle((_r, res) => json(res, answers[server.requests.length - 1] ?? 500, []));
    const token = counted();
    const list = await client(token.provider, 1).subscriptions.list(7);
    expect(list).toEqual([]);
    expect(server.requests).toHaveLength(3);
    expect(token.calls()).toBe(3);
  });

  it('with a static token a 401 is not re-sent', async () => {
    server.handle((_r, res) => json(res, 401, {}));
    const c = new ClaimsClient({ baseUrl: server.url, accessToken: 'static', ...options });
    await expect(c.incidents.create(incident)).rejects.toBeInstanceOf(ClaimsApiError);
    expect(server.requests).toHaveLength(1);
  });
});
