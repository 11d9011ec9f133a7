/**
 * The receivers with the deliveries the sandbox really sends: typed by the sandbox's own
 * payload schema, deduplicated on its `deliveryId`, and a copy of a delivery (the recorded
 * request sent again, as a sender's retry would) answered 200 without running the handler.
 */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsClient } from '../../src/index.js';
import { createSandbox, NewEventDeliverySchema, type Sandbox } from '../../src/testing/index.js';
import { createNodeMiddleware } from '../../src/webhooks/index.js';
import { closeServer, listen } from './http-send.js';

let sandbox: Sandbox;
let client: ClaimsClient;
beforeAll(async () => {
  sandbox = await createSandbox();
  client = new ClaimsClient({ baseUrl: sandbox.url, accessToken: sandbox.token });
});
afterAll(() => sandbox.close());

describe('a receiver fed by the sandbox', () => {
  it('runs the handler once per delivery; a copy sent again is 200 "duplicate"', async () => {
    const handled: Array<{ key: string | undefined; incidentId: string; category: string }> = [];
    const receiver = createServer(
      createNodeMiddleware(
        {
          headerName: 'X-Hook-Secret',
          headerValue: 'sandbox-secret',
          schema: NewEventDeliverySchema,
          deduplicate: { key: (payload) => payload.deliveryId },
        },
        async (payload, { key }) => {
          handled.push({ key, incidentId: payload.data.incidentId, category: payload.data.category });
        },
      ),
    );
    const port = await listen(receiver);
    try {
      const { webhookId } = sandbox.createWebhook({
        url: `http://127.0.0.1:${port}/hooks`,
        headerName: 'X-Hook-Secret',
        headerValue: 'sandbox-secret',
      });
      await client.subscriptions.create(webhookId, { name: 'all', webhookEvent: 'New Event' });
      const { incidentId } = await client.incidents.create({
        programmeCode: 'PRG-HOME',
        policyTypeCode: 'HOME-STD',
        policyCountry: 'GB',
        incidentDate: '2026-11-02',
        description: 'Storm damage',
      });
      await client.events.create(incidentId, {
        eventType: 'Event Log Entry',
        category: 'Other',
        detail: 'one',
      });
      await client.events.create(incidentId, {
        eventType: 'Event Log Entry',
        category: 'Other',
        detail: 'two',
      });
      await sandbox.settled();
      const sent = sandbox.deliveries.filter((d) => d.webhookId === webhookId);
      expect(sent.map((d) => [d.status, d.responseStatus])).toEqual([
        ['delivered', 200],
        ['delivered', 200],
      ]);
      expect(handled).toEqual(sent.map((d) => ({ key: d.deliveryId, incidentId, category: 'Other' })));

      // The first delivery again, byte for byte as the sandbox sent it.
      const first = sent[0] as (typeof sent)[number];
      const copy = await fetch(first.url, {
        method: 'POST',
        headers: first.headers,
        body: JSON.stringify(first.payload),
      });
      expect(copy.status).toBe(200);
      expect(await copy.json()).toEqual({ received: true, duplicate: true });
      expect(handled).toHaveLength(2);
    } finally {
      await closeServer(receiver);
    }
  });
});
