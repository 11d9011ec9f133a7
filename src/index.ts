export type { ClaimsPromise, WithResponse } from './claims-promise.js';
export type { ClaimsClientBase, ClaimsClientOptions } from './client.js';
export {
  EventCategories,
  type EventCategory,
  type EventType,
  EventTypes,
  type FilterField,
  FilterFields,
  type FilterOperator,
  FilterOperators,
  type OpenString,
  type WebhookEvent,
  WebhookEvents,
} from './constants.js';
export {
  type ApiErrorInit,
  AuthenticationError,
  BadRequestError,
  type CallDescription,
  ClaimsApiError,
  ClaimsConnectionError,
  type ClaimsConnectionErrorOptions,
  ClaimsError,
  type ClaimsErrorOptions,
  ClaimsResponseValidationError,
  ClaimsTimeoutError,
  ClaimsValidationError,
  ConflictError,
  InternalServerError,
  isClaimsError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
  type ValidationIssue,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './errors.js';
export {
  checkExtendedFields,
  type ExtendedFieldProblem,
  type ExtendedFieldProblemCode,
  ExtendedFieldProblemCodes,
  extendedFieldsFrom,
  requiredExtendedFields,
} from './extended-fields.js';
export type { FormSnapshot, FormSnapshotForm } from './form-snapshot.js';
export type { FieldTypeAttributes, FormChange, FormChangeKind, FormChangeOf } from './forms/changes.js';
export { checkForms } from './forms/check.js';
export type { Logger, LogLevel } from './logger.js';
export { type Outcome, outcomeOf } from './outcome.js';
export { ClaimsClient } from './platform/node.js';
export type { Attachments, UploadOptions } from './resources/attachments.js';
export type {
  DesiredSubscription,
  DesiredSubscriptions,
  DesiredWebhook,
} from './resources/desired-subscriptions.js';
export type { Events } from './resources/events.js';
export type { BodyCallOptions } from './resources/extra-body.js';
export type { IncidentCreateOptions, Incidents } from './resources/incidents.js';
export type { Metadata } from './resources/metadata.js';
export type { AppliedChange, SubscriptionApplyResult } from './resources/subscription-apply.js';
export type { SubscriptionChange, SubscriptionPlan } from './resources/subscription-plan.js';
export { SubscriptionPlanError, type SubscriptionPlanFailure } from './resources/subscription-plan-error.js';
export type {
  SubscriptionApplyOptions,
  SubscriptionPlanOptions,
  Subscriptions,
} from './resources/subscriptions.js';
export type { Webhooks } from './resources/webhooks.js';
export type {
  AttachmentRef,
  AttachmentRefCommon,
  AttachmentRefInput,
  UploadedAttachment,
} from './schemas/attachments.js';
export type { NumericId } from './schemas/common.js';
export type { EventCreate, EventCreated } from './schemas/events.js';
export type { ExtendedFieldValue, IncidentCreate, IncidentCreated } from './schemas/incidents.js';
export type { IncidentFieldDescriptor, IncidentFieldsQuery } from './schemas/metadata.js';
export type {
  FilterCondition,
  Subscription,
  SubscriptionCreate,
  SubscriptionCreated,
  SubscriptionFilters,
  SubscriptionPatch,
} from './schemas/subscriptions.js';
export type { WebhookPatch } from './schemas/webhooks.js';
export type { AccessTokenContext, AccessTokenProvider, CallOptions } from './transport.js';
export type {
  UploadData,
  UploadItem,
  UploadPath,
  UploadProgress,
  UploadProgressListener,
} from './uploads/index.js';
export { VERSION } from './version.js';
export {
  receiveWebhook,
  verifyWebhook,
  type WebhookHeaders,
  type WebhookReceiveOptions,
  type WebhookVerifyOptions,
} from './webhook-receiver.js';
export type { TlsOptions } from './wire/dispatcher.js';
export type { FetchLike } from './wire/fetch-wire.js';
