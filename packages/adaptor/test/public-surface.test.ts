// Pins the runtime export list of every stable public entry point, so any change of surface shows
// up in review as a diff of this file: update the literal list together with the index.ts change.
// Type-only exports are not runtime keys and are not listed. Not pinned yet, because their surface
// is still being written: @adaptor/driver/process, @adaptor/claude, @adaptor/testkit (and its
// ./fake-cli), and packages without a source entry yet.
import { describe, expect, it } from "vitest";

describe("public surface", () => {
  it("@adaptor/errors", async () => {
    expect(Object.keys(await import("@adaptor/errors")).sort()).toEqual([
      "AdaptorError",
      "DriverError",
      "ERROR_BRAND_PREFIX",
      "ErrCode",
      "SENTINEL_BRAND",
      "errorCode",
      "findError",
      "hasBrand",
      "isErrCode",
      "isError",
      "isSentinel",
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
    ]);
  });

  it("@adaptor/tool", async () => {
    expect(Object.keys(await import("@adaptor/tool")).sort()).toEqual([
      "ErrInvalidDefinition",
      "ErrInvalidInput",
      "ErrInvalidOutput",
    ]);
  });

  it("@adaptor/skill", async () => {
    expect(Object.keys(await import("@adaptor/skill")).sort()).toEqual([
      "ErrSkillKeyConflict",
      "ErrSkillKeyMissing",
      "ErrSkillMaterializationFailed",
      "ErrSkillNotFound",
      "ErrSkillSourceMissing",
      "SkillKeyConflictError",
      "SkillMaterializationError",
    ]);
  });

  it("@adaptor/mcp", async () => {
    expect(Object.keys(await import("@adaptor/mcp")).sort()).toEqual([
      "ErrInvalidConfig",
      "ErrTransportUnsupported",
      "ErrUnsupported",
    ]);
  });

  it("@adaptor/threadstore", async () => {
    expect(Object.keys(await import("@adaptor/threadstore")).sort()).toEqual([
      "AlreadyExistsError",
      "BusyError",
      "ErrAlreadyExists",
      "ErrBusy",
      "ErrLeaseLost",
      "LeaseLostError",
    ]);
  });

  it("adaptor", async () => {
    expect(Object.keys(await import("adaptor")).sort()).toEqual([
      "AdaptorError",
      "Agent",
      "ApprovalRequest",
      "DEFAULT_APPROVAL_TIMEOUT_MS",
      "DEFAULT_EVENT_BUFFER",
      "DriverError",
      "ErrAgentClosed",
      "ErrAgentFailed",
      "ErrApprovalDenied",
      "ErrApprovalExpired",
      "ErrApprovalKindMismatch",
      "ErrApprovalResolved",
      "ErrApprovalTimeout",
      "ErrApprovalUnavailable",
      "ErrCode",
      "ErrHumanDecisionModeUnsupported",
      "ErrInvalidDriverConfig",
      "ErrInvalidMCPConfig",
      "ErrInvalidOutputSchema",
      "ErrInvalidPolicy",
      "ErrMCPTransportUnsupported",
      "ErrMCPUnsupported",
      "ErrPolicyCapabilityUnsupported",
      "ErrPolicyViolation",
      "ErrResumeRejected",
      "ErrRunCancelled",
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
      "ErrThreadStoreRequired",
      "HumanDecisionModeUnsupportedError",
      "InvalidDriverConfigError",
      "InvalidOutputSchemaError",
      "InvalidPolicyError",
      "PolicyCapabilityUnsupportedError",
      "Result",
      "RunError",
      "SessionConfigFingerprintError",
      "SkillKeyConflictError",
      "SkillMaterializationError",
      "Stream",
      "StructuredOutputUnsupportedError",
      "approveAll",
      "denyAll",
      "errorCode",
      "findError",
      "isError",
      "policyReadOnly",
      "policyUnrestricted",
      "policyWorkspaceWrite",
    ]);
  });
});
