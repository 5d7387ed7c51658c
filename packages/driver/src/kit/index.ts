export {
  JsonRpcConnection,
  DEFAULT_REPLY_TIMEOUT_MS,
  JSON_RPC_METHOD_NOT_FOUND,
  JSON_RPC_INVALID_REQUEST,
  type JsonRpcConnectionOptions,
  type JsonRpcHandlers,
  type JsonRpcServerRequest,
  type JsonRpcTransport,
} from "./json-rpc/json-rpc-connection.js";
export { JsonRpcError, type JsonRpcErrorObject } from "./json-rpc/json-rpc-error.js";
export { decodeSessionCursor, encodeSessionCursor } from "./session-cursor/session-cursor.js";
export { containsPath, realDirectory } from "./directories/real-directory.js";
export { MAX_SESSION_MESSAGE_BYTES, MAX_SESSION_PAGE_BYTES } from "./session-messages/page-caps.js";
export { mcpStatusOf } from "./mcp-status/mcp-status-of.js";
export {
  ProcessPool,
  DEFAULT_IDLE_MS,
  DEFAULT_MAX_CONCURRENT_SPAWNS,
  type BeforeEndParked,
  type Closable,
  type PooledProcess,
  type PoolTurn,
  type ProcessPoolOptions,
} from "./pool/process-pool.js";
export { launchSignature, stableJson, type LaunchInputs } from "./launch/launch-signature.js";
export { skillsDigest, stageSkillFolders } from "./skills/stage-skills.js";
export {
  COMMON_CONFIG_SHAPE,
  validateDriverConfig,
  spawnLimits,
  graceMs,
  type CommonDriverConfig,
  type DriverConfigRules,
} from "./config/common-config.js";
export { captureConfig, type CapturedConfig } from "./config/capture-config.js";
export { deepFreeze } from "./deep-freeze.js";
export { holdHostWhile } from "../process/hold-host.js";
export { InterruptEscalation, exitOrTerminate, raceAbort, within, type InterruptEscalationOptions } from "./cancel/escalation.js";
export { IDLE_SINK } from "./idle-sink.js";
export { responseExit } from "./cancel/response-exit.js";
export { describeExit, type ExitCause } from "./cancel/exit-description.js";
export { NOT_ENFORCED_BY_RULE, reportEnforcement, type EnforcementRule } from "./policy/report-enforcement.js";
export { hasNoEffect } from "./policy/tool-kinds.js";
export { approvalModeNotice } from "./policy/approval-mode-notice.js";
export { mcpToolOf, type McpServerTools, type McpToolCallNames, type McpToolRef } from "./tool-call/mcp-tool-of.js";
export { knownInput } from "./tool-call/known-input.js";
export { boundLength, boundToolName, TOOL_NAME_MAX_LENGTH } from "./tool-call/bound-tool-name.js";
export { sessionInit, type SessionOpened } from "./session-init.js";
export { installedPackageVersion, packageBinaryVersion, type CliPackageBinary } from "./version-floor/package-version.js";
export {
  StallWatchdog,
  withStallWatchdog,
  DEFAULT_STALL_TIMEOUT_MS,
  type OutputCounter,
  type StallWatchdogOptions,
} from "./stall/stall-watchdog.js";
export { endTurnBackground, BACKGROUND_ENDED_MESSAGE, BACKGROUND_LEFT_MESSAGE } from "./cancel/turn-background.js";
export { closingQuote, hasRawControl } from "./json-text/json-string-scan.js";
export { LineTemplate } from "./json-text/line-template.js";
export { boundDepth, JSON_DEPTH_MAX, JSON_DEPTH_PLACEHOLDER, nestsDeeperThan } from "./json-text/bound-depth.js";
export { ownString } from "./json-text/own-string.js";
export { beforeNextLine } from "./pace/before-next-line.js";
export { readTextBatches } from "./pace/read-text-batches.js";
export {
  inspectCli,
  parseVersion,
  probeFailure,
  withDeadline,
  DEFAULT_PROBE_TIMEOUT_MS,
  NOT_PROBED,
  type CliInspectionPlan,
  type ProbeContext,
  type ProbeFindings,
  type ProbeOutput,
} from "./inspect/inspect-cli.js";
export { resultUsage, StreamJsonTurn, toolResultText, type StreamJsonTurnOptions } from "./stream-json/stream-json-turn.js";
export type { ContentBlock, ResultLine, ResultUsage } from "./stream-json/stream-json-lines.js";
export { classifyStreamJsonTurn, type StreamJsonCli, type TurnEnd } from "./stream-json/classify-turn.js";
export { toApprovalAsk, toPermissionAnswer, type CanUseToolRequest } from "./stream-json/can-use-tool.js";
export {
  elicitationAsk,
  elicitationResult,
  ELICITATION_CHOICES,
  type ElicitationRequest,
  type ElicitationResult,
} from "./elicitation/elicitation-ask.js";
export { oneShotTurn, type OneShotTurnOptions } from "./one-shot/one-shot-turn.js";
export {
  OneShotCliDriver,
  type OneShotCliDriverPlan,
  type OneShotOutcome,
  type OneShotTurnContext,
  type OneShotTurnHandler,
} from "./one-shot/one-shot-cli-driver.js";
export { TranscriptLog, type PackedTextKind } from "./transcript/transcript-log.js";
export { processGone, waitForProcessGone } from "./process-gone/process-gone.js";
export {
  checkVersionFloor,
  compareVersions,
  requireCliVersion,
  CLI_VERSION_FEATURE,
  type CliVersionCheck,
  type VersionFloor,
} from "./version-floor/version-floor.js";
export { confirmStartedVersion } from "./version-floor/confirm-started-version.js";
export {
  cliVersion,
  forgetCliVersions,
  VERSION_PROBE_TIMEOUT_MS,
  type CliVersion,
  type CliVersionProbe,
} from "./version-floor/cli-version.js";
