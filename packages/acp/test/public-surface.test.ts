// Pins the runtime export list of @adaptor/acp: update the literal list together with index.ts.
import { describe, expect, it } from "vitest";

describe("public surface", () => {
  it("@adaptor/acp", async () => {
    expect(Object.keys(await import("@adaptor/acp")).sort()).toEqual([
      "AcpApprovalEditUnsupportedError",
      "AcpDriver",
      "AcpModeNotAppliedError",
      "CLAUDE_AGENT_ACP_INHERITED_ENV",
      "COPILOT_INHERITED_ENV",
      "GEMINI_INHERITED_ENV",
      "GEMINI_RESUME_LIMIT",
      "OPENCODE_ASK_AGENT",
      "OPENCODE_INHERITED_ENV",
      "OPENCODE_READ_ONLY_AGENT",
      "PINNED_CLAUDE_AGENT_ACP_VERSION",
      "PINNED_COPILOT_VERSION",
      "PINNED_GEMINI_VERSION",
      "PINNED_OPENCODE_VERSION",
      "PINNED_QWEN_VERSION",
      "QWEN_INHERITED_ENV",
      "acp",
      "claudeAgentAcp",
      "claudeAgentAcpConfig",
      "copilot",
      "copilotAcpConfig",
      "gemini",
      "geminiAcpConfig",
      "opencode",
      "opencodeAcpConfig",
      "qwen",
      "qwenAcpConfig",
      "validateAcpConfig",
    ]);
  });
});
