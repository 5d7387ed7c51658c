// Pins the runtime export list of every public entry point, so any change of surface shows up in
// review as a diff of this file: update the literal list together with the index.ts change.
// Type-only exports are not runtime keys and are not listed.
import { describe, expect, it } from "vitest";

describe("public surface", () => {
  it("@adaptor/errors", async () => {
    expect(Object.keys(await import("@adaptor/errors")).sort()).toEqual([
      "AdaptorError",
      "DriverError",
      "ERROR_BRAND_PREFIX",
      "ErrCode",
      "ErrInvalidOption",
      "InvalidOptionError",
      "MAX_TIMER_MS",
      "MalformedStringError",
      "SENTINEL_BRAND",
      "assertWellFormedString",
      "checkOptions",
      "errorCode",
      "findError",
      "findStringFlaw",
      "hasBrand",
      "isErrCode",
      "isError",
      "isSentinel",
      "optionChecks",
      "sentinel",
      "walkError",
    ]);
  });

  it("@adaptor/driver", async () => {
    expect(Object.keys(await import("@adaptor/driver")).sort()).toEqual([
      "ErrHumanDecisionModeUnsupported",
      "ErrInvalidDriverConfig",
      "ErrInvalidOutputSchema",
      "ErrInvalidPolicy",
      "ErrPolicyCapabilityUnsupported",
      "ErrStructuredOutputUnsupported",
      "HumanDecisionModeUnsupportedError",
      "InvalidDriverConfigError",
      "InvalidOutputSchemaError",
      "InvalidPolicyError",
      "PolicyCapabilityUnsupportedError",
      "SessionConfigFingerprintError",
      "StructuredOutputUnsupportedError",
      "assertPolicySupported",
      "checkDriverConfig",
      "driverConfigRefusal",
      "inheritEnvOption",
    ]);
  });

  it("@adaptor/driver/process", async () => {
    expect(Object.keys(await import("@adaptor/driver/process")).sort()).toEqual([
      "DEFAULT_KILL_GRACE_MS",
      "DEFAULT_MAX_LINE_BYTES",
      "DEFAULT_MAX_RAW_BYTES",
      "JsonLinesDecoder",
      "SAFE_ENV_BASE",
      "WarmPool",
      "envNameMatches",
      "forceKilledError",
      "inheritEnvProblem",
      "isolateStdioServer",
      "mergeChildEnv",
      "readSessionFile",
      "spawnCli",
      "stripTerminalEscapes",
      "writeSessionFile",
    ]);
  });

  it("@adaptor/driver/kit", async () => {
    expect(Object.keys(await import("@adaptor/driver/kit")).sort()).toEqual([
      "COMMON_CONFIG_SHAPE",
      "DEFAULT_IDLE_MS",
      "DEFAULT_MAX_CONCURRENT_SPAWNS",
      "DEFAULT_PROBE_TIMEOUT_MS",
      "DEFAULT_REPLY_TIMEOUT_MS",
      "IDLE_SINK",
      "InterruptEscalation",
      "JSON_RPC_METHOD_NOT_FOUND",
      "JsonRpcConnection",
      "JsonRpcError",
      "ProcessPool",
      "captureConfig",
      "deepFreeze",
      "exitOrTerminate",
      "graceMs",
      "inspectCli",
      "launchSignature",
      "parseVersion",
      "probeFailure",
      "spawnLimits",
      "stableJson",
      "validateDriverConfig",
      "withDeadline",
      "within",
    ]);
  });

  it("@adaptor/tool", async () => {
    expect(Object.keys(await import("@adaptor/tool")).sort()).toEqual([
      "ErrInvalidDefinition",
      "ErrInvalidInput",
      "ErrInvalidOutput",
      "Tool",
      "asRejection",
      "defineTool",
      "reject",
    ]);
  });

  it("@adaptor/skill", async () => {
    expect(Object.keys(await import("@adaptor/skill")).sort()).toEqual([
      "DEFAULT_SKILL_ARCHIVE_LIMITS",
      "ErrSkillKeyConflict",
      "ErrSkillKeyMissing",
      "ErrSkillMaterializationFailed",
      "ErrSkillNotFound",
      "ErrSkillSourceMissing",
      "SkillKeyConflictError",
      "SkillMaterializationError",
      "materializeSkills",
      "requireSkill",
      "resolveSkills",
      "skillArchive",
      "skillDir",
      "skillInline",
      "skillKey",
      "skillSet",
    ]);
  });

  it("@adaptor/mcp", async () => {
    expect(Object.keys(await import("@adaptor/mcp")).sort()).toEqual([
      "ErrInvalidConfig",
      "ErrTransportUnsupported",
      "ErrUnsupported",
      "HOST_TOOL_PATH",
      "checkMcpSupport",
      "mcpHttp",
      "mcpSse",
      "mcpStdio",
      "resolveMcpServers",
      "startHostToolServer",
      "validateMcpServers",
    ]);
  });

  it("@adaptor/threadstore", async () => {
    expect(Object.keys(await import("@adaptor/threadstore")).sort()).toEqual([
      "AlreadyExistsError",
      "BusyError",
      "ErrAlreadyExists",
      "ErrBusy",
      "ErrInvalidThreadKey",
      "ErrLeaseLost",
      "ErrSessionStateTooLarge",
      "InvalidThreadKeyError",
      "LeaseLostError",
      "MAX_THREAD_KEY_BYTES",
      "MemoryThreadStore",
      "SessionStateTooLargeError",
      "checkFinalizeRequest",
      "checkLease",
      "checkLeaseArgs",
      "checkResolveQuery",
      "checkSessionStateWrite",
      "checkThreadKey",
      "checkTtl",
      "sessionStateBytesAfter",
      "threadKeyProblem",
    ]);
  });

  it("@adaptor/threadstore-sqlite", async () => {
    expect(Object.keys(await import("@adaptor/threadstore-sqlite")).sort()).toEqual([
      "SqliteThreadStore",
    ]);
  });

  it("@adaptor/threadstore-postgres", async () => {
    expect(Object.keys(await import("@adaptor/threadstore-postgres")).sort()).toEqual([
      "PostgresThreadStore",
    ]);
  });

  it("@adaptor/sessionrecorder", async () => {
    expect(Object.keys(await import("@adaptor/sessionrecorder")).sort()).toEqual([
      "DEFAULT_MAX_RECORD_BYTES",
      "ErrEventLogLocked",
      "ErrInvalidSessionKey",
      "ErrJSONLEventBackendClosed",
      "ErrJSONLEventLogCorrupt",
      "EventLogCorruptError",
      "EventLogLockedError",
      "InvalidSessionKeyError",
      "JsonlEventBackend",
      "MAX_SESSION_KEY_LENGTH",
      "MemoryEventBackend",
      "SessionRecorder",
      "checkSessionKey",
      "sessionKeyProblem",
      "toJsonEvent",
    ]);
  });

  it("@adaptor/a2a-client", async () => {
    expect(Object.keys(await import("@adaptor/a2a-client")).sort()).toEqual([
      "A2AClient",
      "AGENT_CARD_PATH",
      "DEFAULT_DELEGATION_TIMEOUT_MS",
      "DEFAULT_MAX_REDIRECTS",
      "DEFAULT_RECOVERY_ATTEMPTS",
      "DEFAULT_RECOVERY_DELAY_MS",
      "DELEGATION_NOTICE",
      "DelegationError",
      "ErrInvalidAgentCard",
      "ErrNotFound",
      "ErrProtocol",
      "ErrUnauthorized",
      "ErrUnsupported",
      "ErrUntrustedOrigin",
      "FAILURE_METADATA_KEY",
      "MAX_RAW_CHARS",
      "ProtocolError",
      "StreamRecoveryError",
      "a2aDelegation",
      "delegate",
      "isFinalState",
      "sanitizeRaw",
      "taskStateName",
      "textOf",
    ]);
  });

  it("adaptor", async () => {
    expect(Object.keys(await import("adaptor")).sort()).toEqual([
      "A2AProtocolError",
      "A2AStreamRecoveryError",
      "AdaptorError",
      "Agent",
      "AlreadyExistsError",
      "ApprovalRequest",
      "BusyError",
      "CHECKPOINT_CODEC",
      "DEFAULT_APPROVAL_TIMEOUT_MS",
      "DEFAULT_EVENT_BUFFER",
      "DEFAULT_LEASE_TTL_MS",
      "DEFAULT_SESSION_STATE_LIMIT_BYTES",
      "DelegationError",
      "DriverError",
      "ErrA2AInvalidAgentCard",
      "ErrA2ANotFound",
      "ErrA2AProtocol",
      "ErrA2AUnauthorized",
      "ErrA2AUnsupported",
      "ErrA2AUntrustedOrigin",
      "ErrAgentClosed",
      "ErrAgentFailed",
      "ErrAlreadyExists",
      "ErrApprovalDenied",
      "ErrApprovalExpired",
      "ErrApprovalKindMismatch",
      "ErrApprovalResolved",
      "ErrApprovalTimeout",
      "ErrApprovalUnavailable",
      "ErrBusy",
      "ErrCode",
      "ErrEventLogLocked",
      "ErrHumanDecisionModeUnsupported",
      "ErrInvalidDefinition",
      "ErrInvalidDriverConfig",
      "ErrInvalidInput",
      "ErrInvalidMCPConfig",
      "ErrInvalidOption",
      "ErrInvalidOutput",
      "ErrInvalidOutputSchema",
      "ErrInvalidPolicy",
      "ErrInvalidSessionKey",
      "ErrInvalidThreadKey",
      "ErrJSONLEventBackendClosed",
      "ErrJSONLEventLogCorrupt",
      "ErrLeaseLost",
      "ErrMCPTransportUnsupported",
      "ErrMCPUnsupported",
      "ErrPolicyCapabilityUnsupported",
      "ErrPolicyViolation",
      "ErrResumeRejected",
      "ErrRunCancelled",
      "ErrSessionStateTooLarge",
      "ErrSkillKeyConflict",
      "ErrSkillKeyMissing",
      "ErrSkillMaterializationFailed",
      "ErrSkillNotFound",
      "ErrSkillSourceMissing",
      "ErrStructuredOutputUnsupported",
      "ErrThreadAlreadyExists",
      "ErrThreadBusy",
      "ErrThreadCheckpointMissing",
      "ErrThreadIncompatible",
      "ErrThreadLeaseLost",
      "ErrThreadNotFound",
      "ErrThreadSessionTooLarge",
      "ErrThreadSessionUnavailable",
      "ErrThreadStoreRequired",
      "EventLogCorruptError",
      "EventLogLockedError",
      "HOST_TOOL_SERVER_NAME",
      "HumanDecisionModeUnsupportedError",
      "InvalidDriverConfigError",
      "InvalidOptionError",
      "InvalidOutputSchemaError",
      "InvalidPolicyError",
      "InvalidSessionKeyError",
      "InvalidThreadKeyError",
      "LeaseLostError",
      "MAX_THREAD_KEY_BYTES",
      "MAX_TIMER_MS",
      "MalformedStringError",
      "PolicyCapabilityUnsupportedError",
      "Result",
      "RunError",
      "SessionConfigFingerprintError",
      "SessionStateTooLargeError",
      "SkillKeyConflictError",
      "SkillMaterializationError",
      "Stream",
      "StructuredOutput",
      "StructuredOutputUnsupportedError",
      "Thread",
      "Tool",
      "approveAll",
      "asRejection",
      "defineTool",
      "denyAll",
      "errorCode",
      "findError",
      "isError",
      "mcpHttp",
      "mcpSse",
      "mcpStdio",
      "policyReadOnly",
      "policyUnrestricted",
      "policyWorkspaceWrite",
      "reject",
      "requireSkill",
      "runAs",
      "skillArchive",
      "skillDir",
      "skillInline",
      "skillKey",
      "skillSet",
    ]);
  });
});
