// Public surface of @adaptor/a2a-client: an Agent2Agent (A2A) client with trusted-origin
// credentials and stream recovery, its error identities, and the a2aDelegation host tool.

export { ErrInvalidAgentCard, ErrProtocol, ErrUnauthorized, ErrNotFound, ErrUnsupported, ErrUntrustedOrigin } from "./errors/sentinels.js";
export { ProtocolError, type ProtocolErrorInit } from "./errors/protocol-error.js";
export { StreamRecoveryError } from "./errors/stream-recovery-error.js";
export { sanitizeRaw, redactCredentials, MAX_RAW_CHARS } from "./errors/sanitize.js";
export {
  A2AClient,
  AGENT_CARD_PATH,
  BACKGROUND_CANCEL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_RECOVERY_ATTEMPTS,
  DEFAULT_RECOVERY_DELAY_MS,
  MAX_AGENT_CARD_BYTES,
  textOf,
  type A2AClientOptions,
  type MessageInput,
  type SendOptions,
} from "./client/a2a-client.js";
export { DEFAULT_MAX_REDIRECTS } from "./client/trust.js";
export { DEFAULT_MAX_RESPONSE_BYTES } from "./client/bounded-body.js";
export { isFinalState, taskStateName, type A2AStreamEvent } from "./client/stream-event.js";
export { DelegationError, type DelegationErrorCode, type DelegationErrorInit } from "./delegation/delegation-error.js";
export {
  delegate,
  DEFAULT_MAX_DELEGATION_TEXT_CHARS,
  FAILURE_METADATA_KEY,
  MAX_REMOTE_MESSAGE_CHARS,
  type DelegateOptions,
  type DelegationProgress,
  type DelegationResult,
} from "./delegation/delegate.js";
export { a2aDelegation, DEFAULT_DELEGATION_TIMEOUT_MS, DELEGATION_NOTICE, type A2ADelegationOptions } from "./delegation/a2a-delegation.js";
