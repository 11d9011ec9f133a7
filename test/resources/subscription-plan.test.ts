import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClaimsValidationError } from '../../src/errors.js';
import { checkDesired, type DesiredSubscription } from '../../src/resources/desired-subscriptions.js';
import { fingerprintOf, planSubscriptions, sameFilters } from '../../src/resources/subscription-plan.js';
import { SubscriptionPlanError } from '../../src/resources/subscription-plan-error.js';
import { schemas } from '../../src/schemas/load.js';
import type { FilterCondition, Subscription } from '../../src/schemas/subscriptions.js';

const s = await schemas();
const check = (desired: unknown) =>
  checkDesired(desired, { subscription: s.SubscriptionCreateSchema, webhook: s.WebhookPatchSchema });

const cond = (name: string, value: string) => ({ name, operator: 'equals', value });
const live = (id: number, name: string | null, rest: Partial<Subscription> = {}): Subscription => ({
  webhookSubscriptionId: id,
  webhookId: 12,
  name,
  webhookEvent: 'New Event',
  isActive: true,
  filters: { fields: [] },
  ...rest,
});
const plan = (desired: unknown, subs: Subscription[], includeUnnamed = false) =>
  planSubscriptions({
    webhookId: 12,
    desired: check(desired),
    live: subs,
    fingerprint: 'fp',
    includeUnnamed,
  });

function issuesOf(desired: unknown) {
  try {
    check(desired);
  } catch (error) {
    expect(error).toBeInstanceOf(ClaimsValidationError);
    return (error as ClaimsValidationError).issues;
  }
  throw new Error('accepted');
}

describe('planSubscriptions', () => {
  it('creates the missing, updates only the fields that differ, disables the unwanted, counts the rest', () => {
    const result = plan(
      [
        { name: 'new', webhookEvent: 'New Event', filters: { fields: [cond('category', 'Other')] } },
        { name: 'changed', webhookEvent: 'New Event', isActive: true },
        {
          name: 'same',
          webhookEvent: 'New Event',
          filters: { fields: [cond('eventType', 'A'), cond('category', 'B')] },
        },
      ],
      [
        live(1, 'changed', { isActive: false }),
        live(2, 'same', { filters: { fields: [cond('category', 'B'), cond('eventType', 'A')] } }),
        live(3, 'gone'),
        live(4, 'gone-already', { isActive: false }),
        live(5, null),
        live(6, ''),
      ],
    );
    expect(result).toEqual({
      kind: 'claims-subscriptions-plan',
      version: 1,
      webhookId: 12,
      changes: [
        {
          action: 'create',
          name: 'new',
          patch: { name: 'new', webhookEvent: 'New Event', filters: { fields: [cond('category', 'Other')] } },
        },
        {
          action: 'update',
          name: 'changed',
          subscriptionId: 1,
          patch: { isActive: true },
          before: { isActive: false },
        },
        {
          action: 'disable',
          name: 'gone',
          subscriptionId: 3,
          patch: { isActive: false },
          before: { isActive: true },
        },
      ],
      unchanged: ['same'],
      unnamed: [5, 6],
      fingerprint: 'fp',
    });
  });

  it('isActive defaults to true in the desired state; false is kept and created as such', () => {
    expect(
      plan([{ name: 'a', webhookEvent: 'New Event' }], [live(1, 'a', { isActive: false })]).changes,
    ).toEqual([
      {
        action: 'update',
        name: 'a',
        subscriptionId: 1,
        patch: { isActive: true },
        before: { isActive: false },
      },
    ]);
    const off = { name: 'a', webhookEvent: 'New Event', isActive: false };
    expect(plan([off], [live(1, 'a', { isActive: false })]).changes).toEqual([]);
    expect(plan([off], []).changes).toEqual([{ action: 'create', name: 'a', patch: off }]);
  });

  it('a new webhookEvent always carries the filters (the old ones test another payload)', () => {
    const result = plan([{ name: 'a', webhookEvent: 'Other Event' }], [live(1, 'a')]);
    expect(result.changes).toEqual([
      {
        action: 'update',
        name: 'a',
        subscriptionId: 1,
        patch: { webhookEvent: 'Other Event', filters: { fields: [] } },
        before: { webhookEvent: 'New Event', filters: { fields: [] } },
      },
    ]);
  });

  it('filters that differ are replaced whole; absent and null live filters are no filters', () => {
    const want = { name: 'a', webhookEvent: 'New Event', filters: { fields: [cond('category', 'X')] } };
    const result = plan([want], [live(1, 'a', { filters: { fields: [cond('category', 'Y')] } })]);
    expect(result.changes[0]).toMatchObject({
      patch: { filters: want.filters },
      before: { filters: { fields: [cond('category', 'Y')] } },
    });
    expect(
      plan([{ name: 'a', webhookEvent: 'New Event' }], [live(1, 'a', { filters: null })]).changes,
    ).toEqual([]);
    expect(
      plan([{ name: 'a', webhookEvent: 'New Event' }], [live(1, 'a', { filters: undefined })]).changes,
    ).toEqual([]);
  });

  it('unnamed subscriptions are left alone, unless includeUnnamed: then the active ones are disabled', () => {
    const subs = [live(5, null), live(6, null, { isActive: false })];
    expect(plan([], subs).changes).toEqual([]);
    expect(plan([], subs).unnamed).toEqual([5, 6]);
    // A subscription listed without a name field at all is unnamed too.
    const { name: _, ...noName } = live(7, null);
    expect(plan([], [noName as Subscription])).toMatchObject({ changes: [], unnamed: [7] });
    const all = plan([], subs, true);
    expect(all.unnamed).toEqual([]);
    expect(all.changes).toEqual([
      {
        action: 'disable',
        name: null,
        subscriptionId: 5,
        patch: { isActive: false },
        before: { isActive: true },
      },
    ]);
  });

  it('two live subscriptions with one name: SubscriptionPlanError naming each, with their ids', () => {
    const subs = [
      live(1, 'a'),
      live(2, 'b'),
      live(3, 'a'),
      live(4, 'a'),
      live(5, 'b\n"x"'),
      live(6, 'b\n"x"'),
    ];
    let error: unknown;
    try {
      plan([], subs);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SubscriptionPlanError);
    const e = error as SubscriptionPlanError;
    expect(e.failure).toBe('duplicate_names');
    expect(e.names).toEqual(['a', 'b\n"x"']);
    expect(e.outcome).toBe('not_sent');
    expect(e.name).toBe('SubscriptionPlanError');
    expect(e.message).toBe(
      'Webhook 12 has more than one subscription with one name: "a" (ids 1, 3, 4); "b\\n\\"x\\"" (ids 5, 6). Subscriptions are matched by name: rename or disable the extra ones (claims subscriptions update), then plan again',
    );
  });

  it('carries the webhook settings, without counting them as changes', () => {
    const result = plan({ webhook: { url: 'https://h.example/x', isActive: true }, subscriptions: [] }, []);
    expect(result.webhook).toEqual({ url: 'https://h.example/x', isActive: true });
    expect(result.changes).toEqual([]);
    expect('webhook' in plan([], [])).toBe(false);
  });

  it('property: applying a plan to the live list gives a list the next plan leaves unchanged', () => {
    const value = fc.constantFrom('A', 'B', 'C');
    const filters = fc.array(
      fc.record({ name: fc.constantFrom('eventType', 'category'), operator: fc.constant('equals'), value }),
      { maxLength: 3 },
    );
    const name = fc.constantFrom('n1', 'n2', 'n3', 'n4');
    const desiredArb = fc.uniqueArray(
      fc.record({
        name,
        webhookEvent: fc.constantFrom('New Event', 'Other'),
        isActive: fc.option(fc.boolean(), { nil: undefined }),
        filters: fc.option(fc.record({ fields: filters }), { nil: undefined }),
      }),
      { selector: (d) => d.name, maxLength: 4 },
    );
    const liveArb = fc.uniqueArray(
      fc.record({
        name: fc.option(name, { nil: null }),
        webhookEvent: fc.constantFrom('New Event', 'Other'),
        isActive: fc.boolean(),
        fields: filters,
      }),
      { selector: (l) => l.name ?? Math.random(), maxLength: 5 },
    );
    fc.assert(
      fc.property(desiredArb, liveArb, fc.boolean(), (desired, liveSpec, includeUnnamed) => {
        const clean = desired.map((d) => JSON.parse(JSON.stringify(d)) as DesiredSubscription);
        let subs = liveSpec.map((l, i) =>
          live(i + 1, l.name, {
            webhookEvent: l.webhookEvent,
            isActive: l.isActive,
            filters: { fields: l.fields },
          }),
        );
        const first = plan(clean, subs, includeUnnamed);
        // Carry the plan out on the list, as the API would.
        let nextId = 100;
        for (const change of first.changes) {
          if (change.action === 'create') {
            const body = change.patch as DesiredSubscription;
            subs.push(
              live(nextId++, body.name, {
                webhookEvent: body.webhookEvent,
                isActive: body.isActive ?? true,
                filters: (body.filters ?? { fields: [] }) as Subscription['filters'],
              }),
            );
          } else {
            subs = subs.map((sub) =>
              sub.webhookSubscriptionId === change.subscriptionId
                ? ({ ...sub, ...change.patch } as Subscription)
                : sub,
            );
          }
        }
        const second = plan(clean, subs, includeUnnamed);
        expect(second.changes).toEqual([]);
        expect(second.unchanged.sort()).toEqual(clean.map((d) => d.name).sort());
      }),
      { numRuns: 300 },
    );
  });
});

describe('sameFilters: filters compared as sets', () => {
  it('order and repeats do not matter; values, names, operators and extra desired fields do', () => {
    const a = cond('category', 'A');
    const b = cond('eventType', 'B');
    expect(sameFilters({ fields: [a, b] }, { fields: [b, a] })).toBe(true);
    expect(sameFilters({ fields: [a, a, b] }, { fields: [b, a] })).toBe(true);
    expect(sameFilters({ fields: [a] }, { fields: [a, b] })).toBe(false);
    expect(sameFilters({ fields: [a, b] }, { fields: [a] })).toBe(false);
    expect(sameFilters({ fields: [a] }, { fields: [cond('category', 'a')] })).toBe(false);
    expect(sameFilters({ fields: [a] }, { fields: [{ ...a, operator: 'notEquals' }] })).toBe(false);
    expect(sameFilters({ fields: [a] }, { fields: [{ ...a, name: 'eventType' }] })).toBe(false);
    // A field only the server adds makes no difference; one the file gives does.
    const withId = { ...a, id: 9 } as FilterCondition;
    const caseSensitive = { ...a, caseSensitive: true } as FilterCondition;
    expect(sameFilters({ fields: [a] }, { fields: [withId] })).toBe(true);
    expect(sameFilters({ fields: [caseSensitive] }, { fields: [a] })).toBe(false);
    expect(sameFilters({ fields: [caseSensitive] }, { fields: [{ ...caseSensitive }] })).toBe(true);
  });

  it('property: equal to any permutation with repeats; differs when a condition is missing', () => {
    const c = fc.record({ name: fc.string(), operator: fc.string(), value: fc.string() });
    fc.assert(
      fc.property(fc.array(c, { maxLength: 6 }), fc.nat(), (fields, seed) => {
        const shuffled = [...fields, ...fields.slice(0, seed % (fields.length + 1))].sort(
          () => (seed++ % 3) - 1,
        );
        expect(sameFilters({ fields }, { fields: shuffled })).toBe(true);
        if (fields.length > 0) {
          const missing = fields.filter((f) => JSON.stringify(f) !== JSON.stringify(fields[0]));
          expect(sameFilters({ fields }, { fields: missing })).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('fingerprintOf', () => {
  it('the same for the same subscriptions in any order; different for any change', async () => {
    const subs = [
      live(2, 'b', { filters: { fields: [cond('category', 'A'), cond('eventType', 'B')] } }),
      live(10, 'a'),
    ];
    const fp = await fingerprintOf(subs);
    expect(fp).toMatch(/^sha256:[0-9a-f]{64}$/);
    const reordered = [
      subs[1] as Subscription,
      { ...(subs[0] as Subscription), filters: { fields: [cond('eventType', 'B'), cond('category', 'A')] } },
    ];
    expect(await fingerprintOf(reordered)).toBe(fp);
    for (const changed of [
      [live(2, 'b'), live(10, 'a')],
      [{ ...(subs[0] as Subscription), isActive: false }, subs[1] as Subscription],
      [{ ...(subs[0] as Subscription), name: 'c' }, subs[1] as Subscription],
      [{ ...(subs[0] as Subscription), webhookEvent: 'X' }, subs[1] as Subscription],
      [{ ...(subs[0] as Subscription), webhookSubscriptionId: 3 }, subs[1] as Subscription],
      [subs[0] as Subscription],
    ]) {
      expect(await fingerprintOf(changed)).not.toBe(fp);
    }
    // Conditions in another order, with their fields in another order, or listed twice: the same.
    const shuffled = {
      fields: [{ value: 'B', operator: 'equals', name: 'eventType' }, cond('category', 'A')],
    };
    expect(
      await fingerprintOf([{ ...(subs[0] as Subscription), filters: shuffled }, subs[1] as Subscription]),
    ).toBe(fp);
    expect(await fingerprintOf([live(3, 'c'), live(2, 'b')])).toBe(
      await fingerprintOf([live(2, 'b'), live(3, 'c')]),
    );
    expect(
      await fingerprintOf([live(2, 'b', { filters: { fields: [cond('category', 'Z')] } }), live(10, 'a')]),
    ).not.toBe(
      await fingerprintOf([live(2, 'b', { filters: { fields: [cond('category', 'A')] } }), live(10, 'a')]),
    );
    // Ids compared as numbers, whatever their size: 9 before 10, and digit strings past 2^53.
    expect(await fingerprintOf([live(9, 'x'), live(10, 'y')])).toBe(
      await fingerprintOf([live(10, 'y'), live(9, 'x')]),
    );
    const big = (id: string, name: string) => ({ ...live(0, name), webhookSubscriptionId: id });
    expect(await fingerprintOf([big('99999999999999999999', 'x'), big('100000000000000000000', 'y')])).toBe(
      await fingerprintOf([big('100000000000000000000', 'y'), big('99999999999999999999', 'x')]),
    );
  });
});

describe('checkDesired', () => {
  it('takes the list, or { webhook, subscriptions }', () => {
    const list = [{ name: 'a', webhookEvent: 'New Event' }];
    expect(check(list)).toEqual({ webhook: undefined, subscriptions: list });
    expect(check({ subscriptions: list, webhook: { headerName: 'X-Hook' } })).toEqual({
      webhook: { headerName: 'X-Hook' },
      subscriptions: list,
    });
  });

  it('names every problem: a missing or repeated name, a typo, an unknown field, a bad body', () => {
    expect(
      issuesOf([
        { webhookEvent: 'New Event' },
        { name: '', webhookEvent: 'New Event' },
        { name: 'a', webhookEvent: 'New Event' },
        { name: 'a', webhookEvent: 'New Event' },
        { name: 'b', webhookEvnt: 'New Event' },
        { name: 'c', webhookEvent: 'New Event', colour: 'red' },
        { name: 'd', webhookEvent: '', isActive: 'yes' },
        'not an object',
      ]),
    ).toEqual([
      { path: '[0].name', message: 'is required: subscriptions are matched by name' },
      { path: '[1].name', message: 'is required: subscriptions are matched by name' },
      { path: '[3].name', message: '"a" is also the name of entry 2' },
      { path: '[4].webhookEvent', message: expect.any(String) },
      { path: '[4].webhookEvnt', message: expect.stringContaining('did you mean "webhookEvent"') },
      {
        path: '[5].colour',
        message: 'is not a field of a subscription (name, webhookEvent, isActive, filters)',
      },
      { path: '[6].webhookEvent', message: 'must not be empty' },
      { path: '[6].isActive', message: expect.any(String) },
      { path: '[7]', message: expect.any(String) },
    ]);
  });

  it('the object form: paths under subscriptions; unknown top-level keys, a bad webhook', () => {
    expect(issuesOf({ subscriptions: [{ webhookEvent: 'New Event' }], extra: 1 })).toEqual([
      { path: 'extra', message: 'is not a field of the file (webhook, subscriptions)' },
      { path: 'subscriptions[0].name', message: 'is required: subscriptions are matched by name' },
    ]);
    expect(issuesOf({ webhook: [] })).toEqual([
      { path: 'subscriptions', message: 'must be an array of subscriptions' },
      { path: 'webhook', message: 'must be an object: { url?, headerName?, isActive? }' },
    ]);
    expect(issuesOf({ webhook: {}, subscriptions: [] })).toEqual([
      { path: 'webhook', message: 'is empty: give url, headerName or isActive' },
    ]);
    expect(
      issuesOf({ webhook: { url: 'ftp://x', headerName: 'a b', colour: 1 }, subscriptions: [] }),
    ).toEqual([
      { path: 'webhook.url', message: expect.any(String) },
      { path: 'webhook.headerName', message: 'must be a valid HTTP header name' },
      { path: 'webhook.colour', message: 'is not a field of the webhook (url, headerName, isActive)' },
    ]);
    expect(issuesOf(7)).toEqual([
      { path: '', message: 'must be an array of subscriptions, or { "webhook"?, "subscriptions" }' },
    ]);
    expect(issuesOf(null)).toHaveLength(1);
  });

  it('a header value in the file is refused, and never echoed', () => {
    const secret = 'hunter2-super-secret';
    for (const webhook of [
      { headerValue: secret },
      { headerValue: secret, url: 'nope' },
      { headerValue: 42 },
    ]) {
      let error: unknown;
      try {
        check({ webhook, subscriptions: [] });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ClaimsValidationError);
      const e = error as ClaimsValidationError;
      expect(e.issues[0]).toEqual({
        path: 'webhook.headerValue',
        message: expect.stringContaining('is a secret and does not belong in this file'),
      });
      expect(JSON.stringify(e.issues) + e.message + JSON.stringify(e)).not.toContain(secret);
      if (Object.keys(webhook).length === 1) expect(e.issues).toHaveLength(1);
    }
  });
});
