// Public surface of @adaptor/a2a: serve an Agent, a Thread or a fleet as an A2A agent; the A2A client, its
// errors and the delegation tool are re-exported from @adaptor/a2a-client as the same objects.

export {
  a2aServer,
  type A2AServer,
  type A2AServerOptions,
  type A2AServerCard,
  type StreamRunner,
  type RunnerFor,
} from "./server/a2a-server.js";
export type { A2AServerLog } from "./server/server-log.js";
export { taskFailure, MAX_FAILURE_MESSAGE_CHARS, type A2AFailureCode, type TaskFailure } from "./server/failure.js";
export { RESPONSE_ARTIFACT_ID, type ApprovalAnswer } from "./server/task-run.js";
export { a2aFleetServer, FLEET_RUN_METADATA_KEY, type A2AFleetServerOptions } from "./fleet/a2a-fleet-server.js";
export type { A2AFleet, A2AFleetRun, A2AFleetEvent, A2AFleetRunOptions } from "./fleet/fleet-front.js";
export {
  A2AClient,
  AGENT_CARD_PATH,
  BACKGROUND_CANCEL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_RECOVERY_ATTEMPTS,
  DEFAULT_RECOVERY_DELAY_MS,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_DELEGATION_TEXT_CHARS,
  MAX_AGENT_CARD_BYTES,
  MAX_REMOTE_MESSAGE_CHARS,
  ErrInvalidAgentCard,
  ErrProtocol,
  ErrUnauthorized,
  ErrNotFound,
  ErrUnsupported,
  ErrUntrustedOrigin,
  ProtocolError,
  StreamRecoveryError,
  DelegationError,
  a2aDelegation,
  delegate,
  DEFAULT_DELEGATION_TIMEOUT_MS,
  DELEGATION_NOTICE,
  FAILURE_METADATA_KEY,
  isFinalState,
  taskStateName,
  textOf,
  type A2AClientOptions,
  type A2AStreamEvent,
  type A2ADelegationOptions,
  type DelegateOptions,
  type DelegationErrorCode,
  type DelegationProgress,
  type DelegationResult,
  type MessageInput,
  type SendOptions,
} from "@adaptor/a2a-client";
