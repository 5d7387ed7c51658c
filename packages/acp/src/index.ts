export { acp } from "./acp.js";
export { AcpDriver, type AcpDriverOptions } from "./acp-driver.js";
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
