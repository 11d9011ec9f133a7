/**
 * The response types are written out (type literals, not interfaces: those would lose the implicit index signature) so their fields keep TSDoc in the built
 * `.d.ts` (declaration files drop the comments of a zod schema's fields). Each must stay
 * exactly the type its schema parses to: a field added to one and not the other fails here.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type {
  IncidentCreated,
  Subscription,
  SubscriptionCreated,
  UploadedAttachment,
} from '../../src/index.js';
import type { UploadedAttachmentSchema } from '../../src/schemas/attachments.js';
import type { IncidentCreatedSchema } from '../../src/schemas/incidents.js';
import type { SubscriptionCreatedSchema, SubscriptionSchema } from '../../src/schemas/subscriptions.js';

describe('documented response types equal their schemas', () => {
  it('UploadedAttachment', () => {
    expectTypeOf<UploadedAttachment>().toEqualTypeOf<z.infer<typeof UploadedAttachmentSchema>>();
  });
  it('IncidentCreated', () => {
    expectTypeOf<IncidentCreated>().toEqualTypeOf<z.infer<typeof IncidentCreatedSchema>>();
  });
  it('SubscriptionCreated', () => {
    expectTypeOf<SubscriptionCreated>().toEqualTypeOf<z.infer<typeof SubscriptionCreatedSchema>>();
  });
  it('Subscription', () => {
    expectTypeOf<Subscription>().toEqualTypeOf<z.infer<typeof SubscriptionSchema>>();
  });
});
