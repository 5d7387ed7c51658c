export { acp } from "./acp.js";
export { AcpDriver, type AcpDriverOptions, type AgentNotice, type InheritedSession, type InheritedSessionContext } from "./acp-driver.js";
export { validateAcpConfig, type AcpConfig, type AcpSandboxModes } from "./config/acp-config.js";
export {
  gemini,
  geminiAcpConfig,
  PINNED_GEMINI_VERSION,
  GEMINI_INHERITED_ENV,
  GEMINI_RESUME_LIMIT,
  type GeminiConfig,
} from "./presets/gemini.js";
export { qwen, qwenAcpConfig, PINNED_QWEN_VERSION, QWEN_INHERITED_ENV, type QwenConfig } from "./presets/qwen.js";
export { AcpModeNotAppliedError } from "./policy/mode-not-applied-error.js";
export { AcpApprovalEditUnsupportedError } from "./host/approval-edit-unsupported-error.js";
export {
  opencode,
  opencodeAcpConfig,
  PINNED_OPENCODE_VERSION,
  OPENCODE_INHERITED_ENV,
  OPENCODE_ASK_AGENT,
  OPENCODE_READ_ONLY_AGENT,
  type OpencodeConfig,
} from "./presets/opencode.js";
export {
  claudeAgentAcp,
  claudeAgentAcpConfig,
  PINNED_CLAUDE_AGENT_ACP_VERSION,
  CLAUDE_AGENT_ACP_INHERITED_ENV,
  type ClaudeAgentAcpConfig,
} from "./presets/claude-agent-acp.js";
export { copilot, copilotAcpConfig, PINNED_COPILOT_VERSION, COPILOT_INHERITED_ENV, type CopilotConfig } from "./presets/copilot.js";
