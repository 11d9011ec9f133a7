// The `claims-notification-sdk/testing` entry: a local stand-in of the whole API for tests
// and demos. msw is loaded only when `claimsHandlers()` is called.
export type { SandboxAttachment } from './core/attachments.js';
export type { SandboxDelivery } from './core/deliveries.js';
export { type NewEventDelivery, NewEventDeliverySchema } from './core/delivery-payload.js';
export type { SandboxEvent, SandboxIncident, SandboxLinkedAttachment } from './core/incidents.js';
export type {
  SandboxField,
  SandboxFieldInput,
  SandboxForm,
  SandboxFormInput,
  SandboxMetadata,
  SandboxMetadataInput,
  SandboxPolicyType,
  SandboxProgramme,
} from './core/metadata-types.js';
export { type SandboxOAuthOptions, TOKEN_PATH, TokenIssuer } from './core/oauth.js';
export type { OutboundBodyReader, OutboundFetch, OutboundResponse } from './core/outbound.js';
export { SandboxCore, type SandboxCoreOptions } from './core/sandbox-core.js';
export { defaultSandboxMetadata } from './core/seed.js';
export type { SandboxErrorBody, SandboxErrorDetail, SandboxRequest, SandboxResponse } from './core/types.js';
export {
  type ClaimsHandlers,
  type ClaimsHandlersOptions,
  type ClaimsMswHandler,
  claimsHandlers,
  SANDBOX_MSW_BASE_URL,
} from './msw.js';
export { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';
