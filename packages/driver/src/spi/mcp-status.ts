/**
 * An MCP server's state in the `data.servers` of a `notice` of kind `mcp.status`, in one
 * vocabulary for every driver (the Claude Agent SDK's `McpServerStatus` words, plus two of the
 * adaptor's own):
 * - `connected`: the server started and answered (Claude Code `connected`, Codex `ready`);
 * - `pending`: still starting when the run went on without it (Claude Code `pending`, Codex `starting`);
 * - `failed`: it did not start, or ended (Claude Code `failed`, Codex `failed` and `cancelled`);
 * - `needs-auth`: an HTTP server that asks for authorization (Claude Code `needs-auth`);
 * - `disabled`: turned off in the CLI's config (Claude Code `disabled`);
 * - `not_running`: an ACP agent's stdio server that is not among the agent's processes after the turn;
 * - `unknown`: a word this driver does not know, or no report from the CLI (Codex before its first
 *   report; an ACP agent whose processes cannot be listed).
 */
export type McpStatus = "connected" | "pending" | "failed" | "needs-auth" | "disabled" | "not_running" | "unknown";

/** One MCP server of a `notice` of kind `mcp.status` (its `data.servers`). */
export interface McpServerState {
  /** The server's name, as the run declared it (or as the user's CLI config names it). */
  readonly name: string;
  /** Its state, in the one vocabulary of {@link McpStatus}. */
  readonly status: McpStatus;
  /** The CLI's own word for the state, e.g. Codex's `"ready"`; absent where the CLI reports none (ACP). */
  readonly cliStatus?: string;
  /**
   * Why it is not connected, as the CLI words it, e.g. Claude Code `"Connection closed"`, Codex
   * `"MCP client for \`bad\` failed to start: …"`; only when the CLI gives one.
   */
  readonly error?: string;
  /**
   * The names of the tools it offers, as the server names them (`"echo"`, not
   * `"mcp__fixture__echo"`); only when the CLI lists them (Claude Code, for a connected server).
   */
  readonly tools?: readonly string[];
  /** Where its definition came from (Claude Code): `dynamic` for the run's servers, `user` / `project` / `local` for the user's own. */
  readonly source?: string;
}
