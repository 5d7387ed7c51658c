import { CodexDriver } from "./codex-driver.js";
import type { CodexConfig } from "./config.js";

export { CodexDriver } from "./codex-driver.js";
export { CODEX_DESCRIPTOR, CODEX_EXEC_DESCRIPTOR } from "./descriptor.js";
export {
  CODEX_INHERITED_ENV,
  OWNED_FLAGS,
  OWNED_CONFIG_KEYS,
  validateCodexConfig,
  type CodexConfig,
  type CodexTransport,
} from "./config.js";
export { MIN_CODEX_VERSION, PINNED_CODEX_VERSION, defaultCodexCommand } from "./command.js";
export { CodexRpcError } from "./app-server/codex-rpc-error.js";
export { toStrictOutputSchema, stripOptionalNulls } from "./output-schema/strict-output-schema.js";

/**
 * Makes a Codex driver.
 * @example
 * const agent = new Agent(codex({ model: "gpt-5.5", cwd: "/path/to/project" }));
 */
export function codex(config: CodexConfig = {}): CodexDriver {
  return new CodexDriver(config);
}
