// Every schema the client validates with, in one module loaded on first use (see load.ts).
export { AttachmentRefInputSchema, UploadItemSchema, UploadResponseSchema } from './attachments.js';
export { IncidentId, NumericId } from './common.js';
export { EVENT_CREATE_KEYS, EventCreatedSchema, EventCreateSchema } from './events.js';
export { INCIDENT_CREATE_KEYS, IncidentCreatedSchema, IncidentCreateSchema } from './incidents.js';
export {
  IncidentFieldDescriptorListSchema,
  IncidentFieldsQuerySchema,
  ProgrammesQuerySchema,
} from './metadata.js';
export { extraBodySchema } from './near-typos.js';
export {
  SUBSCRIPTION_CREATE_KEYS,
  SUBSCRIPTION_PATCH_KEYS,
  SubscriptionCreatedSchema,
  SubscriptionCreateSchema,
  SubscriptionListSchema,
  SubscriptionPatchSchema,
} from './subscriptions.js';
export { WEBHOOK_PATCH_KEYS, WebhookPatchSchema } from './webhooks.js';
