// Public surface of `adaptor`. Leaf identities are re-exported as the very same objects (===).

export { Agent, DEFAULT_LEASE_TTL_MS } from "./agent/agent.js";
export { DEFAULT_SESSION_STATE_LIMIT_BYTES } from "./session-state/portable-sessions.js";
export { Thread, type FileCheckpointScope } from "./agent/thread.js";
export { DEFAULT_MAX_FILE_BYTES, type FileCheckpointOptions } from "./file-checkpoints/file-checkpoint-options.js";
export type { CheckpointedTurn } from "./file-checkpoints/turn-files.js";
export type { RewindResult } from "./file-checkpoints/rewind.js";
export { FileCheckpointError, type FileCheckpointFailure } from "./errors/file-checkpoint-error.js";
export type { ThreadMode } from "./thread/thread-context.js";
export type { ForkOptions, ForkPoint } from "./thread/turn-log.js";
export { CHECKPOINT_CODEC } from "./thread/thread-turn.js";
export { Stream } from "./run/stream.js";
export { hostAllowed, hostRule, type HostRule } from "./http/host-check.js";
export {
  publicMessage,
  redactCredentials,
  secretEnvValues,
  currentSecretEnvValues,
  MAX_PUBLIC_MESSAGE_CHARS,
} from "./http/public-message.js";
export { announcesBody, closeIfBodyUnread } from "./http/unread-body.js";
export { writableOrDropped } from "./http/write-deadline.js";
export { MAX_PROMPT_IMAGES, type Prompt, type PromptPart, type TextPart, type ImagePart } from "./prompt/prompt.js";
export { MAX_PROMPT_IMAGE_BYTES } from "./prompt/read-images.js";
export { Result, type ResultInit } from "./result/result.js";
export type { AgentOptions, RunOptions, SharedRunOptions } from "./options/run-options.js";
export type {
  RunHooks,
  HookContext,
  HookResult,
  ToolCallHookInput,
  ToolResultHookInput,
  PromptSubmitHookInput,
  StopHookInput,
  SessionStartHookInput,
  SessionEndHookInput,
  NotificationHookInput,
  PreCompactHookInput,
  SubagentStartHookInput,
  SubagentStopHookInput,
  BeforeToolCallHook,
  AfterToolCallHook,
  MatchedToolHook,
  ToolHookOption,
  ObserveVerdict,
  BeforeToolCallVerdict,
  ContextVerdict,
  StopVerdict,
} from "./hooks/run-hooks.js";
export type { SuspendOptions } from "./suspend/suspend-options.js";
export { SuspendUnsupportedError } from "./errors/suspend-unsupported-error.js";
export { ThreadCatalogUnsupportedError } from "./errors/thread-catalog-unsupported-error.js";
export type { TelemetryOptions } from "./telemetry/telemetry-options.js";
export type {
  AgentEvent,
  EventMeta,
  EventPayload,
  RunStartedEvent,
  ApprovalRequestEvent,
  DroppedEvent,
  RunFinishedEvent,
} from "./events/agent-event.js";
export { DEFAULT_EVENT_BUFFER } from "./events/event-queue.js";
export { isNotice, type ModelDifference, type NoticeData, type NoticeOf, type SessionInitMcpServer } from "./events/notice-data.js";
export { ApprovalRequest, type ApprovalChoice, type ApprovalRequestInit } from "./approval/approval-request.js";
export type { ApprovalRule, ApprovalRuleScope, RememberRule } from "./approval/approval-rule.js";
export { acceptEdits, EDIT_TOOLS, type ApprovalPolicyRule } from "./approval/policy-rules.js";
export { approveAll, denyAll, type ApprovalHandler, type ApprovalHandlerContext } from "./approval/approval-handler.js";
export { DEFAULT_APPROVAL_TIMEOUT_MS } from "./approval/approval-settings.js";
export {
  policyReadOnly,
  policyWorkspaceWrite,
  policyUnrestricted,
  type Policy,
  type ApprovalPolicy,
  type ApprovalFallback,
} from "./policy/policy.js";
export { RunError, type RunErrorInit } from "./errors/run-error.js";
export { ThreadSessionError, type ThreadSessionErrorInit, type ThreadSessionFailure } from "./errors/thread-session-error.js";
export { ThreadCommitError, type ThreadCommitErrorInit, type ThreadCommitFailure } from "./errors/thread-commit-error.js";

// Root-owned identities.
export {
  ErrAgentClosed,
  ErrApprovalDenied,
  ErrApprovalTimeout,
  ErrAgentFailed,
  ErrRunCancelled,
  ErrPolicyViolation,
  ErrThreadStoreRequired,
  ErrThreadNotFound,
  ErrThreadBusy,
  ErrThreadIncompatible,
  ErrThreadLeaseLost,
  ErrThreadCheckpointMissing,
  ErrThreadAlreadyExists,
  ErrResumeRejected,
  ErrThreadSessionUnavailable,
  ErrThreadSessionTooLarge,
  ErrThreadSessionCorrupt,
  ErrThreadSessionRewritten,
  ErrApprovalResolved,
  ErrApprovalExpired,
  ErrApprovalKindMismatch,
  ErrApprovalEditUnsupported,
  ErrApprovalUnavailable,
  ErrSuspendUnsupported,
  ErrThreadCatalogUnsupported,
  ErrFileCheckpoint,
} from "./errors/sentinels.js";

// Store identities for hosts that use a store directly (the Thread API maps them to ErrThread*).
export {
  ErrBusy,
  ErrLeaseLost,
  ErrAlreadyExists,
  ErrSessionStateTooLarge,
  BusyError,
  LeaseLostError,
  AlreadyExistsError,
  SessionStateTooLargeError,
} from "@adaptor/threadstore";

// Suspended turns: the stored approvals a Thread lists and answers.
export { ErrApprovalNotPending, ApprovalNotPendingError, supportsPendingApprovals } from "@adaptor/threadstore";
export type { PendingApproval, PendingApprovalStatus, StoredApprovalDecision } from "@adaptor/threadstore";
export { supportsThreadCatalog } from "@adaptor/threadstore";
export type { ListThreadsQuery, ThreadPage, ThreadSummary, DeletedThread, ThreadCatalogStore } from "@adaptor/threadstore";

// Thread key rules: one key space for every store, checked where the Agent takes a key.
export { ErrInvalidThreadKey, InvalidThreadKeyError, MAX_THREAD_KEY_BYTES, threadKeyProblem } from "@adaptor/threadstore";

// Session recorder identities (the recorder itself is @adaptor/sessionrecorder), the same objects as the leaf's.
export {
  ErrInvalidSessionKey,
  ErrJSONLEventBackendClosed,
  ErrJSONLEventLogCorrupt,
  ErrEventLogLocked,
  ErrAppendsPending,
  InvalidSessionKeyError,
  EventLogCorruptError,
  EventLogLockedError,
  AppendsPendingError,
} from "@adaptor/sessionrecorder";

// Leaf pre-invocation identities (docs/errors.md), the same objects as their owners'.
export {
  ErrSkillNotFound,
  ErrSkillKeyConflict,
  ErrSkillMaterializationFailed,
  ErrSkillSourceMissing,
  ErrSkillKeyMissing,
  SkillKeyConflictError,
  SkillMaterializationError,
} from "@adaptor/skill";
export {
  ErrInvalidConfig as ErrInvalidMCPConfig,
  ErrUnsupported as ErrMCPUnsupported,
  ErrTransportUnsupported as ErrMCPTransportUnsupported,
} from "@adaptor/mcp";
export {
  ErrInvalidOutputSchema,
  ErrStructuredOutputUnsupported,
  ErrInvalidDriverConfig,
  ErrInvalidPolicy,
  ErrPolicyCapabilityUnsupported,
  ErrHumanDecisionModeUnsupported,
  ErrFeatureUnsupported,
  FeatureUnsupportedError,
  InvalidOutputSchemaError,
  StructuredOutputUnsupportedError,
  InvalidDriverConfigError,
  InvalidPolicyError,
  PolicyCapabilityUnsupportedError,
  HumanDecisionModeUnsupportedError,
  SessionConfigFingerprintError,
} from "@adaptor/driver";
export type {
  Driver,
  DriverSink,
  TurnControl,
  DriverRequest,
  SystemPrompt,
  SubagentDefinition,
  RunBudget,
  ReasoningEffort,
  PromptImage,
  PromptImageType,
  DriverResponse,
  DriverDescriptor,
  DriverCapabilities,
  ApprovalKind,
  ApprovalMode,
  ApprovalModes,
  ApprovalDecision,
  Usage,
  ModelUsage,
  PermissionDenial,
  PolicyEnforcement,
  EnforcementMechanism,
  FailureReason,
  TranscriptItem,
  RawStreams,
  Checkpoint,
  TextDeltaEvent,
  ThinkingDeltaEvent,
  ToolCallEvent,
  ToolResultEvent,
  NoticeEvent,
  ProcessEvent,
  DriverInspection,
  InspectOptions,
  InspectCheck,
  InspectCheckName,
  InspectFailureReason,
  InspectModels,
  InspectCommand,
  InspectCommands,
  ListSessionsQuery,
  SessionPage,
  SessionSummary,
  SkippedSession,
  ForkSessionOptions,
  ForkSessionResult,
  SessionMessagesQuery,
  SessionImage,
  SessionMessage,
  SessionMessagePage,
  SessionToolCall,
  SessionToolResult,
  McpServerState,
  McpStatus,
} from "@adaptor/driver";

// A2A client and delegation identities (docs/errors.md "A2A client errors", "Delegation errors"),
// the same objects as @adaptor/a2a-client's; the `A2A` prefix names their package in the root.
export {
  ErrInvalidAgentCard as ErrA2AInvalidAgentCard,
  ErrProtocol as ErrA2AProtocol,
  ErrUnauthorized as ErrA2AUnauthorized,
  ErrNotFound as ErrA2ANotFound,
  ErrUnsupported as ErrA2AUnsupported,
  ErrUntrustedOrigin as ErrA2AUntrustedOrigin,
  ProtocolError as A2AProtocolError,
  StreamRecoveryError as A2AStreamRecoveryError,
  DelegationError,
} from "@adaptor/a2a-client";

// Skills and MCP servers: declarations hosts pass as `skills`, `skillProvider`, `mcpServers`.
export { skillDir, skillInline, skillArchive, skillKey, requireSkill, skillSet } from "@adaptor/skill";
export type {
  Skill,
  SkillSpec,
  SkillSource,
  SkillKeyRef,
  SkillOptions,
  SkillInlineInit,
  SkillArchiveOptions,
  SkillArchiveFormat,
  SkillArchiveLimits,
  SkillProvider,
  SkillCatalog,
} from "@adaptor/skill";
export { mcpStdio, mcpHttp, mcpSse } from "@adaptor/mcp";
export type { McpServer, McpStdioServer, McpHttpServer, McpSseServer, McpTransport, McpStdioOptions, McpRemoteOptions } from "@adaptor/mcp";

// Matching helpers and codes, so hosts need one import.
export { isError, findError, ErrCode, DriverError, AdaptorError, errorCode, type Sentinel } from "@adaptor/errors";

// Option and input refusals (unknown keys, wrong types, empty values, text a CLI cannot carry).
export {
  ErrInvalidOption,
  InvalidOptionError,
  MalformedStringError,
  MAX_TIMER_MS,
  type InvalidOptionInit,
  type StringFlawKind,
} from "@adaptor/errors";
export type { ThreadOptions } from "./options/check-input.js";
export { checkRunInput, type RunInputContext } from "./options/check-run-input.js";

// Structured output.
export { runAs, type Runner } from "./agent/run-as.js";
export { StructuredOutput, type StructuredOutputInit, type StructuredOutputSource } from "./structured-output/structured-output.js";

// Host tools: the leaf API re-exported as the very same objects.
export { HOST_TOOL_SERVER_NAME } from "./tools/agent-tools.js";
export { defineTool, reject, asRejection, Tool, ErrInvalidDefinition, ErrInvalidInput, ErrInvalidOutput } from "@adaptor/tool";
export type {
  ToolDefinition,
  ToolAnnotations,
  ToolContext,
  ToolOutput,
  Rejection,
  SchemaSource,
  JsonSchemaSource,
  JsonSchemaObject,
  StandardSchemaLike,
  InferSchema,
  ValidationIssue,
} from "@adaptor/tool";
