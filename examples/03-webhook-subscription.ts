// Subscribe a webhook to "New Event" with a filter, and receive a delivery on a local
// receiver that checks the webhook's extra header with receiveWebhook().
//
// A sandbox demo: the spec has no operation to create a webhook, so this example makes its own
// with the sandbox-only `POST /webhooks` (run it with `npm run demo`, or against
// `npx claims-sandbox`). It never repoints an existing webhook: its receiver on 127.0.0.1 stops
// when the example ends, so a real webhook pointed at it would lose its deliveries.
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

/**
 * How long to keep listening after the expected delivery: the sandbox sends each delivery in
 * the background, so one the filter should have skipped could still be on its way.
 */
const GRACE_MS = 1_000;
const DELIVERY_TIMEOUT_MS = 10_000;

const client = clientFromEnv();
const secret = randomBytes(24).toString('base64url');
const hook = { headerName: 'X-Claims-Webhook-Secret', headerValue: secret };

// The receiver: 204 for a verified delivery, 401 / 400 otherwise, 500 for anything else. Every
// verified delivery is kept, so the example can tell that the filter skipped "Other" rather
// than assume it.
const received: NewEventDelivery[] = [];
let resolveFirst: () => void = () => {};
const firstDelivery = new Promise<void>((resolve) => {
  resolveFirst = resolve;
});
const receiver = createServer(async (req, res) => {
  try {
    const delivery = await receiveWebhook(req, { ...hook, schema: NewEventDeliverySchema });
    console.log(`Receiver: verified ${delivery.webhookEvent} for event "${delivery.data.category}"`);
    res.writeHead(204).end();
    received.push(delivery);
    resolveFirst();
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      // invalid_body: not JSON, the wrong shape, too large, or cut off by the sender.
      res.writeHead(error.reason === 'invalid_body' ? 400 : 401).end();
    } else {
      // Answer, never rethrow: a throw in an async handler is an unhandled rejection.
      console.error('Receiver:', error);
      res.writeHead(500).end();
    }
  }
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/claims-events`;

/**
 * Creates this demo's own webhook with the sandbox-only `POST /webhooks` (not in the spec, so
 * not in ClaimsClient). A real service has no such operation and answers an error here.
 */
async function createDemoWebhook(): Promise<number> {
  const { baseUrl, token } = envOrExit();
  const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiverUrl }),
  });
  if (res.status !== 201) {
    throw new Error(
      `POST /webhooks answered ${res.status}: this example needs the sandbox-only POST /webhooks; run it against the sandbox (npm run demo, or npx claims-sandbox)`,
    );
  }
  const created: unknown = await res.json();
  return (created as { webhookId: number }).webhookId;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

if (process.env.CLAIMS_WEBHOOK_ID) {
  console.log('CLAIMS_WEBHOOK_ID is ignored: this demo creates its own webhook and never changes another.');
}

try {
  const id = await createDemoWebhook();
  console.log(`Created webhook ${id} with the sandbox-only POST /webhooks`);
  // A spec operation: give the demo's own webhook its extra header (the shared secret).
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

  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no delivery within ${DELIVERY_TIMEOUT_MS / 1000} s`)),
      DELIVERY_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([firstDelivery, timeout]);
  } finally {
    // Neither keep the process alive nor reject later once the delivery is in.
    clearTimeout(timer);
  }
  // Keep listening a little: a delivery of "Other" that the filter failed to skip may still come.
  await sleep(GRACE_MS);
  const categories = received.map((d) => `"${d.data.category}"`).join(', ');
  if (received.length !== 1) {
    throw new Error(`expected exactly 1 delivery, got ${received.length}: ${categories}`);
  }
  const [delivery] = received as [NewEventDelivery];
  if (delivery.data.category !== 'Report: Final')
    throw new Error(`unexpected delivery: ${delivery.data.category}`);
  console.log(
    `Delivered: "${delivery.data.detail}" of incident ${delivery.data.incidentId}; exactly 1 delivery in ${GRACE_MS} ms more, so the filter skipped "Other"`,
  );

  // Leave this demo's own webhook pointing at nothing live: its receiver is about to stop.
  await client.webhooks.update(id, { isActive: false });
} finally {
  receiver.closeAllConnections();
  receiver.close();
}
