import { ClaudeDriver } from "./claude-driver.js";
import type { ClaudeConfig } from "./config.js";

export { ClaudeDriver, CLAUDE_DESCRIPTOR } from "./claude-driver.js";
export { CLAUDE_INHERITED_ENV, OWNED_FLAGS, validateClaudeConfig, type ClaudeConfig } from "./config.js";
export { MIN_CLAUDE_VERSION, PINNED_CLAUDE_VERSION, defaultClaudeCommand } from "./command.js";

/**
 * Makes a Claude Code driver.
 * @example
 * const agent = new Agent(claude({ model: "claude-sonnet-4-5", cwd: "/path/to/project" }));
 */
export function claude(config: ClaudeConfig = {}): ClaudeDriver {
  return new ClaudeDriver(config);
}
