import { z } from 'zod';

// The sandbox's own reading of request bodies, as the service would do it. Deliberately not
// the SDK's schemas: the sandbox must catch what a faulty client sends, SDK included.

const NonEmpty = z.string().min(1, 'must not be empty');

const HttpUrl = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an absolute http(s) URL');

const HeaderName = z.string().regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, 'must be a valid HTTP header name');

export const AttachmentRefBody = z
  .looseObject({
    attachmentId: NonEmpty.optional(),
    url: HttpUrl.optional(),
    description: z.string().optional(),
  })
  .refine((ref) => (ref.attachmentId === undefined) !== (ref.url === undefined), {
    message: 'give exactly one of attachmentId or url',
  });
export type AttachmentRefBody = z.infer<typeof AttachmentRefBody>;

export const IncidentBody = z.looseObject({
  programmeCode: NonEmpty,
  policyTypeCode: NonEmpty,
  policyCountry: z.string().regex(/^[A-Za-z]{2}$/, 'must be a 2-letter country code'),
  incidentDate: z.iso.date({ error: 'must be a date in the form YYYY-MM-DD' }),
  description: z.string(),
  extendedFields: z.array(z.looseObject({ identifier: NonEmpty, value: z.string() })).optional(),
  attachments: z.array(AttachmentRefBody).optional(),
});
export type IncidentBody = z.infer<typeof IncidentBody>;

export const EventBody = z.looseObject({
  eventType: NonEmpty,
  category: NonEmpty,
  detail: z.string(),
  attachments: z.array(AttachmentRefBody).optional(),
});
export type EventBody = z.infer<typeof EventBody>;

export const WebhookCreateBody = z.looseObject({
  url: HttpUrl,
  headerName: HeaderName.optional(),
  headerValue: z.string().optional(),
  isActive: z.boolean().optional(),
});
export type WebhookCreateBody = z.infer<typeof WebhookCreateBody>;

export const WebhookPatchBody = WebhookCreateBody.partial();
export type WebhookPatchBody = z.infer<typeof WebhookPatchBody>;

export const FiltersBody = z.looseObject({
  fields: z.array(z.looseObject({ name: NonEmpty, operator: NonEmpty, value: z.string() })),
});
export type FiltersBody = z.infer<typeof FiltersBody>;

export const SubscriptionCreateBody = z.looseObject({
  name: z.string().optional(),
  webhookEvent: NonEmpty,
  isActive: z.boolean().optional(),
  filters: FiltersBody.optional(),
});
export type SubscriptionCreateBody = z.infer<typeof SubscriptionCreateBody>;

export const SubscriptionPatchBody = SubscriptionCreateBody.partial();
export type SubscriptionPatchBody = z.infer<typeof SubscriptionPatchBody>;
