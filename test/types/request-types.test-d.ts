/**
 * Compile-time checks of the request types, run by tsc (`npm run typecheck`) and by vitest's
 * typecheck mode (`npm test`). Each `@ts-expect-error` is a mistake a user must not be able to
 * compile: if the types let it through, the directive is unused and the check fails.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type {
  AttachmentRefInput,
  ClaimsClient,
  EventCreate,
  EventCreated,
  ExtendedFieldValue,
  FilterCondition,
  IncidentCreate,
  SubscriptionCreate,
  SubscriptionPatch,
  WebhookPatch,
} from '../../src/index.js';

declare const client: ClaimsClient;
const incident = {
  programmeCode: 'PRG-HOME',
  policyTypeCode: 'HOME-STD',
  policyCountry: 'GB',
  incidentDate: '2026-11-02',
  description: 'Kitchen fire',
} satisfies IncidentCreate;
const event = { eventType: 'Event Log Entry', category: 'Other', detail: 'x' } satisfies EventCreate;

/** The literal members of an open string type: `never` for a plain `string`. */
type Documented<T> = T extends string ? (string extends T ? never : T) : never;

describe('misspelt request fields do not compile', () => {
  it('incidents.create', () => {
    // @ts-expect-error extendedFeilds is not a field
    void client.incidents.create({ ...incident, extendedFeilds: [] });
    // @ts-expect-error policyCountri is not a field
    void client.incidents.create({ ...incident, policyCountri: 'GB' });
  });

  it('events.create', () => {
    // @ts-expect-error categroy is not a field
    void client.events.create('INC-1', { ...event, categroy: 'Other' });
  });

  it('webhooks.update', () => {
    // @ts-expect-error isActve is not a field
    void client.webhooks.update(12, { isActve: false });
  });

  it('subscriptions.create and update', () => {
    // @ts-expect-error webhookEvnt is not a field
    void client.subscriptions.create(12, { webhookEvent: 'New Event', webhookEvnt: 'x' });
    // @ts-expect-error isActve is not a field
    void client.subscriptions.update(12, 34, { isActve: false });
  });

  it('nested: attachment references, extended field values, filter conditions', () => {
    // @ts-expect-error descripton is not a field of an attachment reference
    const ref: AttachmentRefInput = { url: 'https://files.example.com/a.jpg', descripton: 'x' };
    // @ts-expect-error an attachment reference has exactly one source
    const both: AttachmentRefInput = { url: 'https://files.example.com/a.jpg', attachmentId: 'id' };
    // @ts-expect-error an attachment reference needs a source
    const none: AttachmentRefInput = { description: 'x' };
    // @ts-expect-error valeu is not a field of an extended field value
    const value: ExtendedFieldValue = { identifier: 'claim_form:Notes', valeu: 'x' };
    // @ts-expect-error operater is not a field of a filter condition
    const condition: FilterCondition = { name: 'category', operater: 'equals', value: 'x' };
    // @ts-expect-error filters hold `fields`, not `field`
    const filters: SubscriptionCreate = { webhookEvent: 'New Event', filters: { field: [] } };
    void [ref, both, none, value, condition, filters];
  });

  it('call options', () => {
    // @ts-expect-error checkExtendedField is not an option
    void client.incidents.create(incident, { checkExtendedField: false });
    // @ts-expect-error extraBody holds an object of fields, not a list
    void client.incidents.create(incident, { extraBody: ['x'] });
  });
});

describe('what still compiles', () => {
  it('undocumented fields through extraBody, on every body-sending call', () => {
    void client.incidents.create(incident, { extraBody: { brokerReference: 'BR-1182' } });
    void client.events.create('INC-1', event, { extraBody: { reference: 'R-1' } });
    void client.webhooks.update(12, { isActive: true }, { extraBody: { retries: 3 } });
    void client.subscriptions.create(12, { webhookEvent: 'New Event' }, { extraBody: { x: 1 } });
    void client.subscriptions.update(12, 34, { name: 'n' }, { extraBody: { x: 1 } });
  });

  it('any string where the documented values are few', () => {
    const open: EventCreate = { eventType: 'Inspection', category: 'Report: Interim', detail: 'x' };
    const sub: SubscriptionCreate = {
      webhookEvent: 'Incident Closed',
      filters: { fields: [{ name: 'detail', operator: 'contains', value: 'x' }] },
    };
    void [open, sub];
  });

  it('readonly arrays (e.g. `as const` data)', () => {
    const attachments = [{ url: 'https://files.example.com/a.jpg' }] as const;
    void client.incidents.create({ ...incident, attachments });
  });
});

describe('documented values are in the types, for completion', () => {
  it('eventType, category', () => {
    expectTypeOf<Documented<EventCreate['eventType']>>().toEqualTypeOf<'Event Log Entry'>();
    expectTypeOf<Documented<EventCreate['category']>>().toEqualTypeOf<'Other' | 'Report: Final'>();
  });

  it('webhookEvent on create and patch', () => {
    expectTypeOf<Documented<SubscriptionCreate['webhookEvent']>>().toEqualTypeOf<'New Event'>();
    expectTypeOf<
      Documented<Exclude<SubscriptionPatch['webhookEvent'], undefined>>
    >().toEqualTypeOf<'New Event'>();
  });

  it('filter name and operator', () => {
    expectTypeOf<Documented<FilterCondition['name']>>().toEqualTypeOf<'eventType' | 'category'>();
    expectTypeOf<Documented<FilterCondition['operator']>>().toEqualTypeOf<'equals'>();
  });

  it('Documented<string> is never, so the checks above can fail', () => {
    expectTypeOf<Documented<string>>().toEqualTypeOf<never>();
  });
});

describe('answers', () => {
  it('events.create resolves to EventCreated: a JSON object or undefined', () => {
    expectTypeOf(client.events.create).returns.resolves.toEqualTypeOf<EventCreated>();
    expectTypeOf<EventCreated>().toEqualTypeOf<Record<string, unknown> | undefined>();
  });

  it('webhooks.update and subscriptions.update resolve to void', () => {
    expectTypeOf(client.webhooks.update).returns.resolves.toEqualTypeOf<void>();
    expectTypeOf<WebhookPatch>().not.toHaveProperty('isActve');
  });
});

describe('internals are not in the public types', () => {
  it('client.metadata has no assertExtendedFields', () => {
    expectTypeOf(client.metadata).not.toHaveProperty('assertExtendedFields');
    // @ts-expect-error internal, not part of the public API
    void client.metadata.assertExtendedFields;
  });
});
