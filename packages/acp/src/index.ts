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
