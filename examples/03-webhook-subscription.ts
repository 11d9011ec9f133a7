// Subscribe a webhook to "New Event" with a filter, and receive a delivery on a local
// receiver that checks the webhook's extra header with receiveWebhook().
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  FilterFields,
  FilterOperators,
  receiveWebhook,
  WebhookVerificationError,
} from 'claims-notification-sdk';
import { type NewEventDelivery, NewEventDeliverySchema } from 'claims-notification-sdk/testing';
import { clientFromEnv, envOrExit } from './env.js';

const client = clientFromEnv();
const secret = randomBytes(24).toString('base64url');
const hook = { headerName: 'X-Claims-Webhook-Secret', headerValue: secret };

// The receiver: 204 for a verified delivery, 401 / 400 otherwise.
let resolveDelivery: (delivery: NewEventDelivery) => void = () => {};
const delivered = new Promise<NewEventDelivery>((resolve) => {
  resolveDelivery = resolve;
});
const receiver = createServer(async (req, res) => {
  try {
    const delivery = await receiveWebhook(req, { ...hook, schema: NewEventDeliverySchema });
    console.log(`Receiver: verified ${delivery.webhookEvent} for event "${delivery.data.category}"`);
    res.writeHead(204).end();
    resolveDelivery(delivery);
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    res.writeHead(error.reason === 'invalid_body' ? 400 : 401).end();
  }
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/claims-events`;

/**
 * The spec has no operation to create a webhook: with the real service it exists already
 * (CLAIMS_WEBHOOK_ID). Against the sandbox, its sandbox-only POST /webhooks makes one.
 */
async function webhookId(): Promise<number> {
  if (process.env.CLAIMS_WEBHOOK_ID) return Number(process.env.CLAIMS_WEBHOOK_ID);
  const { baseUrl, token } = envOrExit();
  const res = await fetch(`${baseUrl}/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiverUrl }),
  });
  if (res.status !== 201) throw new Error(`POST /webhooks answered ${res.status}`);
  const created: unknown = await res.json();
  return (created as { webhookId: number }).webhookId;
}

try {
  const id = await webhookId();
  await client.webhooks.update(id, { url: receiverUrl, ...hook, isActive: true });
  const { subscriptionId } = await client.subscriptions.create(id, {
    name: `final-reports-${process.pid}`,
    webhookEvent: 'New Event',
    filters: {
      fields: [{ name: FilterFields.Category, operator: FilterOperators.Equals, value: 'Report: Final' }],
    },
  });
  console.log(
    `Webhook ${id} -> ${receiverUrl}; subscription ${subscriptionId} on category = "Report: Final"`,
  );

  const { incidentId } = await client.incidents.create({
    programmeCode: 'PRG-MOTOR',
    policyTypeCode: 'MOTOR-COMP',
    policyCountry: 'GB',
    incidentDate: '2026-11-03',
    description: 'Rear-ended at a junction',
    extendedFields: [
      { identifier: 'motor_claim:Vehicle_Registration', value: 'AB12 CDE' },
      { identifier: 'motor_claim:Incident_Type', value: 'Collision' },
    ],
  });
  await client.events.create(incidentId, {
    eventType: 'Event Log Entry',
    category: 'Other',
    detail: 'Photos requested',
  });
  await client.events.create(incidentId, {
    eventType: 'Event Log Entry',
    category: 'Report: Final',
    detail: 'Engineer report',
  });
  console.log(`Incident ${incidentId}: one "Other" and one "Report: Final" event added`);

  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('no delivery within 10 s')), 10_000).unref(),
  );
  const delivery = await Promise.race([delivered, timeout]);
  if (delivery.data.category !== 'Report: Final')
    throw new Error(`unexpected delivery: ${delivery.data.category}`);
  console.log(
    `Delivered: "${delivery.data.detail}" of incident ${delivery.data.incidentId} (the filter skipped "Other")`,
  );

  // Leave nothing pointing at a receiver that is about to stop.
  await client.webhooks.update(id, { isActive: false });
} finally {
  receiver.closeAllConnections();
  receiver.close();
}
