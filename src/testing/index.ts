// The `claims-notification-sdk/testing` entry: a local stand-in of the whole API for tests
// and demos. msw is loaded only when `claimsHandlers()` is called.
export type { SandboxAttachment } from './core/attachments.js';
export type { SandboxCall } from './core/calls.js';
export type { SandboxDelivery } from './core/deliveries.js';
export { type NewEventDelivery, NewEventDeliverySchema } from './core/delivery-payload.js';
export type { SandboxChaos, SandboxChaosOptions } from './core/faults/chaos.js';
export type {
  SandboxDelayFault,
  SandboxDripFault,
  SandboxFault,
  SandboxFaultRule,
  SandboxResetFault,
  SandboxStatusFault,
  SandboxTimeoutFault,
  SandboxTruncateFault,
} from './core/faults/fault.js';
export type { FaultQueue, SandboxPendingFault } from './core/faults/fault-queue.js';
export type { SandboxEvent, SandboxIncident, SandboxLinkedAttachment } from './core/incidents.js';
export type { SandboxLimits } from './core/limits.js';
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
export type { SandboxBodyView } from './core/secrets.js';
export { defaultSandboxMetadata } from './core/seed.js';
export type { SandboxLookup } from './core/target-guard.js';
export type {
  SandboxErrorBody,
  SandboxErrorDetail,
  SandboxNetworkFault,
  SandboxRequest,
  SandboxResponse,
} from './core/types.js';
export {
  type ClaimsHandlers,
  type ClaimsHandlersOptions,
  type ClaimsMswHandler,
  claimsHandlers,
  SANDBOX_MSW_BASE_URL,
} from './msw.js';
export { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';
