import type { McpStatus } from "../../spi/mcp-status.js";

const CLI_WORDS: Readonly<Record<string, McpStatus>> = {
  connected: "connected",
  ready: "connected",
  pending: "pending",
  starting: "pending",
  failed: "failed",
  cancelled: "failed",
  "needs-auth": "needs-auth",
  disabled: "disabled",
};

/** The {@link McpStatus} of a CLI's word for an MCP server's state (Claude Code's or Codex's); `unknown` for any other word. */
export function mcpStatusOf(cliStatus: string): McpStatus {
  return Object.hasOwn(CLI_WORDS, cliStatus) ? CLI_WORDS[cliStatus]! : "unknown";
}
