import type { SubscriptionChange, SubscriptionPlan } from '../resources/subscription-plan.js';
import type { SubscriptionFilters, SubscriptionPatch } from '../schemas/subscriptions.js';

// How a plan reads on a terminal, like `terraform plan`: one block per change, the fields it
// sets (before -> after), then the verdict. Strings are JSON-quoted, so a name with a line
// break or a quote shows as such.

const SIGN = { create: '+', update: '~', disable: '-' } as const;

/** The plan in words, ending with its one-line verdict. */
export function planText(plan: SubscriptionPlan): string {
  const lines: string[] = [];
  for (const change of plan.changes) lines.push(...changeLines(change), '');
  if (plan.webhook !== undefined) {
    const fields = Object.entries(plan.webhook).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
    lines.push(
      `Webhook ${plan.webhookId}: ${fields.join(', ')} will be set on apply (every time: the API cannot read them back, so they are not counted as changes).`,
    );
  }
  if (plan.unnamed.length > 0) {
    lines.push(
      `${plan.unnamed.length} subscription(s) without a name left alone (ids ${plan.unnamed.join(', ')}); --include-unnamed disables them.`,
    );
  }
  lines.push(verdictLine(plan));
  return `${lines.join('\n')}\n`;
}

/** `Plan: 1 to create, 0 to update, 2 to disable; 3 unchanged.` or the no-change line. */
export function verdictLine(plan: SubscriptionPlan): string {
  const count = (action: SubscriptionChange['action']) =>
    plan.changes.filter((c) => c.action === action).length;
  if (plan.changes.length === 0) {
    return `No changes: the subscriptions of webhook ${plan.webhookId} match the file (${plan.unchanged.length} unchanged).`;
  }
  return `Plan: ${count('create')} to create, ${count('update')} to update, ${count('disable')} to disable; ${plan.unchanged.length} unchanged.`;
}

/** One change as a heading and its fields. */
export function changeLines(change: SubscriptionChange): string[] {
  const id = change.subscriptionId === undefined ? '' : ` (id ${change.subscriptionId})`;
  const name = change.name === null ? '(no name)' : JSON.stringify(change.name);
  const lines = [`  ${SIGN[change.action]} ${change.action} ${name}${id}`];
  const patch = (change.patch ?? {}) as SubscriptionPatch;
  const before = change.before ?? {};
  for (const field of ['webhookEvent', 'isActive', 'filters'] as const) {
    if (!(field in patch)) continue;
    const after = show(field, patch[field]);
    lines.push(
      field in before
        ? `      ${field}: ${show(field, before[field])} -> ${after}`
        : `      ${field}: ${after}`,
    );
  }
  return lines;
}

function show(field: string, value: unknown): string {
  if (field !== 'filters') return JSON.stringify(value);
  const { fields } = (value ?? { fields: [] }) as SubscriptionFilters;
  if (fields.length === 0) return '(none)';
  return fields.map((c) => `${c.name} ${c.operator} ${JSON.stringify(c.value)}`).join(' and ');
}
