/**
 * How `claims subscriptions plan` words a plan, from plans built by hand: every kind of change,
 * the webhook settings line, the unnamed line, both verdicts. test/cli/subscriptions-plan.test.ts
 * checks the same words end to end against the sandbox.
 */
import { describe, expect, it } from 'vitest';
import { changeLines, planText, verdictLine } from '../../src/cli/subscriptions-plan-text.js';
import type { SubscriptionChange, SubscriptionPlan } from '../../src/resources/subscription-plan.js';

const plan = (over: Partial<SubscriptionPlan> = {}): SubscriptionPlan => ({
  kind: 'claims-subscriptions-plan',
  version: 1,
  webhookId: 7,
  changes: [],
  unchanged: [],
  unnamed: [],
  fingerprint: 'sha256:x',
  ...over,
});
const create: SubscriptionChange = {
  action: 'create',
  name: 'a',
  patch: { name: 'a', webhookEvent: 'New Event' },
};
const update: SubscriptionChange = {
  action: 'update',
  name: 'b',
  subscriptionId: 12,
  patch: { isActive: true },
  before: { isActive: false },
};
const disable: SubscriptionChange = {
  action: 'disable',
  name: 'c',
  subscriptionId: 13,
  patch: { isActive: false },
  before: { isActive: true },
};

describe('planText', () => {
  it('one block per change with its sign, then the verdict counting each action', () => {
    expect(planText(plan({ changes: [create, update, disable, disable], unchanged: ['x', 'y', 'z'] }))).toBe(
      [
        '  + create "a"',
        '      webhookEvent: "New Event"',
        '',
        '  ~ update "b" (id 12)',
        '      isActive: false -> true',
        '',
        '  - disable "c" (id 13)',
        '      isActive: true -> false',
        '',
        '  - disable "c" (id 13)',
        '      isActive: true -> false',
        '',
        'Plan: 1 to create, 1 to update, 2 to disable; 3 unchanged.',
        '',
      ].join('\n'),
    );
  });

  it('no changes: the one line naming the webhook and the unchanged count', () => {
    expect(planText(plan({ unchanged: ['a', 'b'] }))).toBe(
      'No changes: the subscriptions of webhook 7 match the file (2 unchanged).\n',
    );
    expect(verdictLine(plan({ changes: [update] }))).toBe(
      'Plan: 0 to create, 1 to update, 0 to disable; 0 unchanged.',
    );
  });

  it("says the webhook's settings are set on every apply, values JSON-quoted, before the verdict", () => {
    const text = planText(
      plan({ webhook: { url: 'https://example.test/hook', headerName: 'X-Key' }, unchanged: ['a'] }),
    );
    expect(text).toBe(
      [
        'Webhook 7: url = "https://example.test/hook", headerName = "X-Key" will be set on apply (every time: the API cannot read them back, so they are not counted as changes).',
        'No changes: the subscriptions of webhook 7 match the file (1 unchanged).',
        '',
      ].join('\n'),
    );
  });

  it('lists the unnamed subscriptions left alone, with their ids', () => {
    expect(planText(plan({ unnamed: [4, 9] }))).toBe(
      [
        '2 subscription(s) without a name left alone (ids 4, 9); --include-unnamed disables them.',
        'No changes: the subscriptions of webhook 7 match the file (0 unchanged).',
        '',
      ].join('\n'),
    );
  });
});

describe('changeLines', () => {
  it('an unnamed subscription shows as (no name); a name is JSON-quoted (quotes, line breaks)', () => {
    expect(changeLines({ ...disable, name: null })[0]).toBe('  - disable (no name) (id 13)');
    expect(changeLines({ ...create, name: 'say "hi"\nnow' })[0]).toBe('  + create "say \\"hi\\"\\nnow"');
  });

  it('shows only the fields the patch sets, in a fixed order, with before -> after where known', () => {
    const lines = changeLines({
      action: 'update',
      name: 'b',
      subscriptionId: 12,
      patch: {
        filters: {
          fields: [
            { name: 'category', operator: 'equals', value: 'Report' },
            { name: 'type', operator: 'contains', value: 'a "b"' },
          ],
        },
        webhookEvent: 'Other Event',
      },
      before: { webhookEvent: 'New Event', filters: { fields: [] } },
    });
    expect(lines).toEqual([
      '  ~ update "b" (id 12)',
      '      webhookEvent: "New Event" -> "Other Event"',
      '      filters: (none) -> category equals "Report" and type contains "a \\"b\\""',
    ]);
  });

  it('a field set without a before value shows its new value alone; name is never listed', () => {
    expect(
      changeLines({
        action: 'create',
        name: 'a',
        patch: { name: 'a', webhookEvent: 'New Event', isActive: false, filters: undefined },
      }),
    ).toEqual([
      '  + create "a"',
      '      webhookEvent: "New Event"',
      '      isActive: false',
      '      filters: (none)',
    ]);
  });

  it('a change without a patch is its heading alone', () => {
    expect(changeLines({ action: 'disable', name: 'c', subscriptionId: 1 })).toEqual([
      '  - disable "c" (id 1)',
    ]);
  });
});
