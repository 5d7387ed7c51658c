export type {
  SandboxMode,
  AllowDeny,
  ApprovalMode,
  ApprovalKind,
  McpTransport,
  DriverCapabilities,
  DriverDescriptor,
} from "./spi/descriptor.js";
export type {
  DriverEvent,
  TextDeltaEvent,
  ThinkingDeltaEvent,
  ToolCallEvent,
  ToolResultEvent,
  NoticeEvent,
  ProcessEvent,
} from "./spi/events.js";
export type { ApprovalAsk, ApprovalDecision } from "./spi/approval.js";
export type { HookPoint, ToolHookPoint, HookAsk, HookAnswer } from "./spi/hooks.js";
export type {
  DriverRequest,
  PrewarmRequest,
  SystemPrompt,
  SubagentDefinition,
  RunBudget,
  ReasoningEffort,
  PromptImage,
  PromptImageType,
} from "./spi/request.js";
export type { RunPolicy, ApprovalModes } from "./spi/policy.js";
export type { EnforcementMechanism, PolicyEnforcement } from "./spi/enforcement.js";
export { assertPolicySupported } from "./policy/assert-policy-supported.js";
export { APPROVAL_KINDS, APPROVAL_MODES_BY_KIND, approvalModes } from "./policy/approval-modes.js";
export { checkDriverConfig, driverConfigRefusal, inheritEnvOption } from "./config/check-driver-config.js";
export { PEER_OPTIONS, driverConfigHints, peerOptionHints, type PeerOption, type PeerSdk } from "./peer-options/peer-options.js";
export { checkInspectOptions } from "./spi/check-inspect-options.js";
export { checkListSessionsQuery, type CheckedListSessionsQuery } from "./spi/check-list-sessions-query.js";
export {
  DEFAULT_SESSION_PAGE_LIMIT,
  MAX_SESSION_PAGE_LIMIT,
  type ListSessionsQuery,
  type DriverListSessionsQuery,
  type SessionSummary,
  type SessionPage,
  type SkippedSession,
} from "./spi/session-list.js";
export {
  checkForkSessionOptions,
  checkSessionId,
  checkSessionTag,
  checkSessionTitle,
  type CheckedForkSessionOptions,
} from "./spi/check-session-edit.js";
export {
  MAX_SESSION_TAG_LENGTH,
  MAX_SESSION_TITLE_LENGTH,
  MAX_MESSAGE_ID_LENGTH,
  type DriverSessionQuery,
  type DriverForkSessionQuery,
  type ForkSessionOptions,
  type ForkSessionResult,
  type DriverRenameSessionQuery,
  type DriverTagSessionQuery,
} from "./spi/session-info.js";
export { checkSessionMessagesQuery, type CheckedSessionMessagesQuery } from "./spi/check-session-messages-query.js";
export {
  DEFAULT_MESSAGE_PAGE_LIMIT,
  MAX_MESSAGE_PAGE_LIMIT,
  type SessionMessagesQuery,
  type DriverSessionMessagesQuery,
  type SessionImage,
  type SessionMessage,
  type SessionMessagePage,
  type SessionToolCall,
  type SessionToolResult,
} from "./spi/session-messages.js";
export { MCP_CONNECT_OP, type McpServerConfig, type SkillBundle } from "./spi/mcp-server.js";
export type { McpServerState, McpStatus } from "./spi/mcp-status.js";
export type {
  Usage,
  ModelUsage,
  PermissionDenial,
  FailureReason,
  DriverFailure,
  TranscriptItem,
  RawStreams,
  Checkpoint,
  DriverResponse,
} from "./spi/response.js";
export type { Driver, DriverSink } from "./spi/driver.js";
export type { TurnControl } from "./spi/turn-control.js";
export type {
  DriverInspection,
  InspectOptions,
  InspectCheck,
  InspectCheckName,
  InspectFailureReason,
  InspectModels,
  InspectCommand,
  InspectCommands,
} from "./spi/inspect.js";
export type { SessionFile, SessionFileSlice, SessionLocation, SessionTransfer } from "./spi/session-transfer.js";
export {
  ErrInvalidDriverConfig,
  ErrInvalidPolicy,
  ErrPolicyCapabilityUnsupported,
  ErrHumanDecisionModeUnsupported,
  ErrInvalidOutputSchema,
  ErrStructuredOutputUnsupported,
  ErrFeatureUnsupported,
  FeatureUnsupportedError,
  InvalidDriverConfigError,
  InvalidPolicyError,
  PolicyCapabilityUnsupportedError,
  HumanDecisionModeUnsupportedError,
  InvalidOutputSchemaError,
  StructuredOutputUnsupportedError,
  SessionConfigFingerprintError,
} from "./errors/index.js";
