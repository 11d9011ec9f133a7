// Every schema the client validates with, in one module loaded on first use (see load.ts).
export { AttachmentRefInputSchema, UploadItemSchema, UploadResponseSchema } from './attachments.js';
export { IncidentId, NumericId } from './common.js';
export { EventCreateSchema } from './events.js';
export { IncidentCreatedSchema, IncidentCreateSchema } from './incidents.js';
export {
  IncidentFieldDescriptorListSchema,
  IncidentFieldsQuerySchema,
  ProgrammesQuerySchema,
} from './metadata.js';
export {
  SubscriptionCreatedSchema,
  SubscriptionCreateSchema,
  SubscriptionListSchema,
  SubscriptionPatchSchema,
} from './subscriptions.js';
export { WebhookPatchSchema } from './webhooks.js';
