import type { AcpConfig } from "./config/acp-config.js";
import { AcpDriver } from "./acp-driver.js";

/**
 * A driver for any agent that speaks the Agent Client Protocol (ACP) on stdio. The config is
 * captured as given and checked by `validateConfig()` before every run (never here).
 *
 * The descriptor says what the protocol and the config promise: prompt-mode structured output,
 * stdio MCP servers (plus `mcpTransports`), permission approvals, process reuse for thread turns,
 * resume in a new process through `session/load` unless `loadSession: false`, no fork, and the
 * sandbox levels `sandboxModes` maps to session modes.
 *
 * @example
 * ```ts
 * const agent = new Agent(acp({ command: "my-agent", args: ["--acp"], sandboxModes: { read_only: "plan" } }));
 * ```
 */
export function acp(config: AcpConfig): AcpDriver {
  return new AcpDriver(config);
}
