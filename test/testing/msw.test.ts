import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsClient, NotFoundError, UnprocessableEntityError } from '../../src/index.js';
import { claimsHandlers, SANDBOX_MSW_BASE_URL, SandboxCore } from '../../src/testing/index.js';
import { homeIncident } from './helpers.js';

// The recipe of docs/testing-with-the-sandbox.md: msw sees fetch, not undici.request, so the client gets `fetch: globalThis.fetch`.
describe('claimsHandlers() with msw', async () => {
  const handlers = await claimsHandlers({ token: 'msw-token' });
  const shared = new SandboxCore();
  const server = setupServer(
    ...handlers,
    ...(await claimsHandlers({ baseUrl: 'https://claims.example.test/api/v1/', sandbox: shared })),
  );
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());

  // msw patches globalThis.fetch in listen(): a client made before that (here, at collection
  // time) must look the global up per call rather than capture it.
  const client = new ClaimsClient({
    baseUrl: SANDBOX_MSW_BASE_URL,
    accessToken: handlers.sandbox.token,
    fetch: (url, init) => globalThis.fetch(url, init),
    maxRetries: 0,
  });

  it('serves every operation from the shared core', async () => {
    expect(handlers.sandbox.token).toBe('msw-token');
    const [upload] = await client.attachments.upload({ data: Buffer.from('scan'), filename: 'scan.txt' });
    const { incidentId } = await client.incidents.create({
      ...homeIncident,
      extendedFields: [{ identifier: 'claim_form:Cause_Of_Loss', value: 'Storm' }],
      attachments: [{ attachmentId: upload?.attachmentId as string, description: 'Scan' }],
    });
    await client.events.create(incidentId, { eventType: 'Event Log Entry', category: 'Other', detail: 'x' });
    expect(handlers.sandbox.incident(incidentId)?.events.map((e) => e.attachments.length)).toEqual([1, 0]);
    expect(handlers.sandbox.attachment(upload?.attachmentId as string)?.data?.toString()).toBe('scan');

    const fields = await client.metadata.incidentFields({
      programmeCode: 'PRG-HOME',
      policyTypeCode: 'HOME-STD',
      countryCode: 'GB',
    });
    expect(fields.length).toBeGreaterThan(0);
    expect(await client.metadata.programmes()).toEqual(handlers.sandbox.metadata.programmes);

    const { webhookId } = handlers.sandbox.createWebhook({ url: 'https://hooks.example.test/claims' });
    await client.webhooks.update(webhookId, { isActive: false });
    const { subscriptionId } = await client.subscriptions.create(webhookId, { webhookEvent: 'New Event' });
    await client.subscriptions.update(webhookId, subscriptionId, { name: 'renamed' });
    expect(await client.subscriptions.list(webhookId)).toMatchObject([{ name: 'renamed', isActive: true }]);
  });

  it('answers errors in the same shape as the server', async () => {
    const error = await client.incidents
      .create(
        { ...homeIncident, extendedFields: [{ identifier: 'claim_form:Cause_Of_Loss', value: 'Hail' }] },
        { checkExtendedFields: false },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    await expect(
      client.events.create('missing', { eventType: 'Event Log Entry', category: 'Other', detail: 'x' }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('serves under a base URL with a path, from a core given by the caller', async () => {
    const scoped = new ClaimsClient({
      baseUrl: 'https://claims.example.test/api/v1',
      accessToken: shared.token,
      fetch: globalThis.fetch,
    });
    const { incidentId } = await scoped.incidents.create(homeIncident);
    expect(shared.incident(incidentId)).toBeDefined();
    expect(handlers.sandbox.incident(incidentId)).toBeUndefined();
  });
});
