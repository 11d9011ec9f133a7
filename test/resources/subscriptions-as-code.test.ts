/**
 * Subscriptions as code against the sandbox, over real HTTP: plan, apply, apply again, a
 * saved plan refused after live changes, unnamed subscriptions, duplicate names (through a
 * proxy that makes the list show two, which the sandbox itself refuses to create), and the
 * webhook's settings proven by where the next delivery goes.
 */
import { createServer, request as httpRequest } from 'node:http';
import { createNodeMiddleware } from 'claims-notification-sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClaimsClient,
  ClaimsValidationError,
  type DesiredSubscription,
  type Subscription,
  SubscriptionPlanError,
} from '../../src/index.js';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { closeServer, listen } from '../webhooks/http-send.js';

let sandbox: Sandbox;
let client: ClaimsClient;
beforeAll(async () => {
  sandbox = await createSandbox();
  client = new ClaimsClient({ baseUrl: sandbox.url, accessToken: sandbox.token });
});
afterAll(() => sandbox.close());

const finalReports = { fields: [{ name: 'category', operator: 'equals', value: 'Report: Final' }] };
const desired: DesiredSubscription[] = [
  { name: 'final-reports', webhookEvent: 'New Event', filters: finalReports },
  {
    name: 'log-entries',
    webhookEvent: 'New Event',
    filters: {
      fields: [
        { name: 'eventType', operator: 'equals', value: 'Event Log Entry' },
        { name: 'category', operator: 'equals', value: 'Other' },
      ],
    },
  },
];

const newWebhook = () => sandbox.createWebhook({ url: 'http://127.0.0.1:9/hook' }).webhookId;
const byName = (list: Subscription[]) => Object.fromEntries(list.map((s) => [s.name, s]));

describe('client.subscriptions.plan / apply against the sandbox', () => {
  it('creates what is missing; planned again nothing is left; applied again no subscription changes', async () => {
    const webhookId = newWebhook();
    const first = await client.subscriptions.plan(webhookId, desired);
    expect(first.changes.map((c) => [c.action, c.name])).toEqual([
      ['create', 'final-reports'],
      ['create', 'log-entries'],
    ]);
    const result = await client.subscriptions.apply(first);
    expect(result.applied.map((c) => [c.action, c.name, typeof c.subscriptionId])).toEqual([
      ['create', 'final-reports', 'number'],
      ['create', 'log-entries', 'number'],
    ]);
    const live = await client.subscriptions.list(webhookId);
    expect(byName(live)['final-reports']).toMatchObject({ isActive: true, filters: finalReports });
    expect(live).toHaveLength(2);

    const second = await client.subscriptions.plan(webhookId, desired);
    expect(second.changes).toEqual([]);
    expect(second.unchanged).toEqual(['final-reports', 'log-entries']);
    expect((await client.subscriptions.apply(second)).applied).toEqual([]);
    expect(await client.subscriptions.list(webhookId)).toEqual(live);
  });

  it('filters compared as sets: a live list in another order is no change', async () => {
    const webhookId = newWebhook();
    const [, logEntries] = desired as [DesiredSubscription, DesiredSubscription];
    const reversed = {
      ...logEntries,
      filters: { fields: [...(logEntries.filters?.fields ?? [])].reverse() },
    };
    await client.subscriptions.create(webhookId, reversed);
    const plan = await client.subscriptions.plan(webhookId, [logEntries]);
    expect(plan.changes).toEqual([]);
  });

  it('updates only the fields that differ, and disables a name no longer in the file', async () => {
    const webhookId = newWebhook();
    await client.subscriptions.apply(await client.subscriptions.plan(webhookId, desired));
    const live = byName(await client.subscriptions.list(webhookId));
    await client.subscriptions.update(webhookId, live['final-reports']?.webhookSubscriptionId as number, {
      isActive: false,
    });
    const plan = await client.subscriptions.plan(webhookId, [desired[0] as DesiredSubscription]);
    expect(plan.changes).toEqual([
      {
        action: 'update',
        name: 'final-reports',
        subscriptionId: live['final-reports']?.webhookSubscriptionId,
        patch: { isActive: true },
        before: { isActive: false },
      },
      {
        action: 'disable',
        name: 'log-entries',
        subscriptionId: live['log-entries']?.webhookSubscriptionId,
        patch: { isActive: false },
        before: { isActive: true },
      },
    ]);
    const result = await client.subscriptions.apply(plan);
    expect(result.applied.map((c) => [c.action, c.subscriptionId])).toEqual([
      ['update', live['final-reports']?.webhookSubscriptionId],
      ['disable', live['log-entries']?.webhookSubscriptionId],
    ]);
    const after = byName(await client.subscriptions.list(webhookId));
    expect(after['final-reports']?.isActive).toBe(true);
    expect(after['log-entries']?.isActive).toBe(false);
    expect((await client.subscriptions.plan(webhookId, [desired[0] as DesiredSubscription])).changes).toEqual(
      [],
    );
  });

  it('unnamed subscriptions are left alone unless includeUnnamed', async () => {
    const webhookId = newWebhook();
    const { subscriptionId } = await client.subscriptions.create(webhookId, { webhookEvent: 'New Event' });
    const plan = await client.subscriptions.plan(webhookId, []);
    expect(plan.changes).toEqual([]);
    expect(plan.unnamed).toEqual([subscriptionId]);
    const all = await client.subscriptions.plan(webhookId, [], { includeUnnamed: true });
    expect(all.changes).toEqual([
      {
        action: 'disable',
        name: null,
        subscriptionId,
        patch: { isActive: false },
        before: { isActive: true },
      },
    ]);
    await client.subscriptions.apply(all);
    expect((await client.subscriptions.list(webhookId))[0]?.isActive).toBe(false);
  });

  it('a saved plan is refused once the live subscriptions changed, and changes nothing; a plan already applied too', async () => {
    const webhookId = newWebhook();
    const saved = JSON.parse(JSON.stringify(await client.subscriptions.plan(webhookId, desired)));
    await client.subscriptions.create(webhookId, { name: 'someone-else', webhookEvent: 'New Event' });
    const before = await client.subscriptions.list(webhookId);
    const error = await client.subscriptions.apply(saved).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubscriptionPlanError);
    expect(error).toMatchObject({ failure: 'stale_plan', outcome: 'not_sent', names: [] });
    expect((error as Error).message).toMatch(
      new RegExp(
        `^The subscriptions of webhook ${webhookId} changed since this plan was made; nothing was applied`,
      ),
    );
    expect(await client.subscriptions.list(webhookId)).toEqual(before);

    const fresh = await client.subscriptions.plan(webhookId, desired);
    await client.subscriptions.apply(fresh);
    await expect(client.subscriptions.apply(fresh)).rejects.toMatchObject({ failure: 'stale_plan' });
  });

  it('a plan that is not one is refused before any call', async () => {
    const error = await client.subscriptions
      .apply({ kind: 'other', changes: [{ action: 'delete' }] } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues).toEqual([
      { path: 'kind', message: 'is not a subscriptions plan of version 1 (make one with plan)' },
      { path: 'webhookId', message: 'must be the webhook id' },
      { path: 'fingerprint', message: 'must be a string' },
      { path: 'changes[0].action', message: 'must be create, update or disable' },
      { path: 'changes[0].patch', message: 'must be an object' },
      { path: 'changes[0].subscriptionId', message: 'is required to update or disable' },
    ]);
    expect((error as Error).message).toMatch(/^Invalid subscriptions plan: kind: /);
    const valid = await client.subscriptions.plan(String(newWebhook()), []);
    const paths = async (plan: unknown) =>
      (
        (await client.subscriptions.apply(plan as never).catch((e: unknown) => e)) as ClaimsValidationError
      ).issues?.map((i) => i.path);
    expect(await paths({ ...valid, version: 2 })).toEqual(['kind']);
    expect(await paths({ ...valid, kind: 'x' })).toEqual(['kind']);
    expect(await paths({ ...valid, changes: 'x' })).toEqual(['changes']);
    expect(
      (
        (await client.subscriptions
          .apply({ ...valid, changes: 'x' } as never)
          .catch((e: unknown) => e)) as ClaimsValidationError
      ).issues,
    ).toEqual([{ path: 'changes', message: 'must be an array' }]);
    expect(await paths({ ...valid, webhookId: undefined })).toEqual(['webhookId']);
    expect(
      await paths({ ...valid, changes: [{ action: 'update', patch: null, subscriptionId: 1 }] }),
    ).toEqual(['changes[0].patch']);
    // A string webhook id (as the CLI gives it) is a plan like any other; without webhook settings none are set.
    const result = await client.subscriptions.apply(valid);
    expect(result).toEqual({ webhookId: valid.webhookId, webhookUpdated: false, applied: [] });
    // A create needs no subscriptionId (this one is made, so the plan is stale after it).
    expect(
      await paths({
        ...valid,
        changes: [{ action: 'create', patch: { name: 'n', webhookEvent: 'New Event' } }],
      }),
    ).toBeUndefined();
  });

  it('a bad desired state or webhook id: ClaimsValidationError, nothing sent', async () => {
    await expect(client.subscriptions.plan(-1, [])).rejects.toBeInstanceOf(ClaimsValidationError);
    await expect(
      client.subscriptions.plan(1, [{ webhookEvent: 'New Event' } as never]),
    ).rejects.toMatchObject({
      issues: [{ path: '[0].name', message: 'is required: subscriptions are matched by name' }],
    });
  });

  it('the webhook settings in the file are set on apply: the next delivery goes to the new url with the new header', async () => {
    const seen: Array<{ headers: Headers; payload: unknown }> = [];
    const receiver = createServer(
      createNodeMiddleware(
        { headerName: 'X-Claims-Token', headerValue: 'shared-secret-1' },
        (payload, { headers }) => void seen.push({ payload, headers }),
      ),
    );
    const port = await listen(receiver);
    try {
      const { webhookId } = sandbox.createWebhook({
        url: 'http://127.0.0.1:9/old',
        headerName: 'X-Old',
        headerValue: 'shared-secret-1',
      });
      const file = {
        webhook: { url: `http://127.0.0.1:${port}/hooks`, headerName: 'X-Claims-Token', isActive: true },
        subscriptions: [desired[0] as DesiredSubscription],
      };
      const plan = await client.subscriptions.plan(webhookId, file);
      expect(plan.webhook).toEqual(file.webhook);
      expect((await client.subscriptions.apply(plan)).webhookUpdated).toBe(true);
      const { incidentId } = await client.incidents.create({
        programmeCode: 'PRG-HOME',
        policyTypeCode: 'HOME-STD',
        policyCountry: 'GB',
        incidentDate: '2026-11-02',
        description: 'Burst pipe',
      });
      await client.events.create(incidentId, {
        eventType: 'Event Log Entry',
        category: 'Report: Final',
        detail: 'Done',
      });
      await sandbox.settled();
      expect(seen).toHaveLength(1);
      expect(seen[0]?.payload).toMatchObject({ webhookEvent: 'New Event', webhookId, data: { incidentId } });
    } finally {
      await closeServer(receiver);
    }
  });
});

describe('two live subscriptions with one name', () => {
  it('are refused by plan, named, with their ids (a proxy shows the sandbox list with a repeated name)', async () => {
    const webhookId = newWebhook();
    await client.subscriptions.create(webhookId, { name: 'dup', webhookEvent: 'New Event' });
    await client.subscriptions.create(webhookId, { name: 'dup-2', webhookEvent: 'New Event' });
    const target = new URL(sandbox.url);
    const proxy = createServer((req, res) => {
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          let body = '';
          answer.on('data', (c: Buffer) => {
            body += c.toString();
          });
          answer.on('end', () => {
            const renamed = body.replaceAll('"dup-2"', '"dup"');
            res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' }).end(renamed);
          });
        },
      );
      req.pipe(upstream);
    });
    const port = await listen(proxy);
    try {
      const viaProxy = new ClaimsClient({ baseUrl: `http://127.0.0.1:${port}`, accessToken: sandbox.token });
      const error = await viaProxy.subscriptions.plan(webhookId, []).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SubscriptionPlanError);
      expect(error).toMatchObject({ failure: 'duplicate_names', names: ['dup'] });
      expect((error as Error).message).toMatch(/"dup" \(ids \d+, \d+\)/);
    } finally {
      await closeServer(proxy);
    }
  });
});
