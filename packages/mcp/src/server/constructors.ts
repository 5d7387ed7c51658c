import type { McpHttpServer, McpSseServer, McpStdioServer } from "./mcp-server.js";

/** Options of {@link mcpStdio}. */
export interface McpStdioOptions {
  /** Arguments of `command`, passed as is (no shell). */
  readonly args?: readonly string[];
  /** Variables of the server process, given on top of a safe base (see {@link McpStdioServer.env}). */
  readonly env?: Readonly<Record<string, string>>;
  /** Which variables of the CLI's environment the server keeps besides `env` (see {@link McpStdioServer.inheritEnv}). */
  readonly inheritEnv?: boolean | readonly string[];
  /** Fail the run when the server cannot connect. Default false. */
  readonly required?: boolean;
}

/** Options of {@link mcpHttp} and {@link mcpSse}. */
export interface McpRemoteOptions {
  /** Extra request headers (kept out of argv: written to the run's private 0600 config file). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Environment variable whose value is sent as `Authorization: Bearer <value>`. */
  readonly bearerTokenEnv?: string;
  /** Fail the run when the server cannot connect. Default false. */
  readonly required?: boolean;
}

/**
 * Declares a local MCP server the CLI starts over stdio. Never throws: the declaration is checked
 * before each run (`ErrInvalidConfig` naming the server).
 *
 * @example
 * mcpStdio("files", "node", { args: ["./mcp/files.js"], env: { ROOT: "/srv" }, required: true })
 */
export function mcpStdio(name: string, command: string, options: McpStdioOptions = {}): McpStdioServer {
  return Object.freeze({ ...options, name, transport: "stdio" as const, command });
}

/**
 * Declares a remote MCP server over Streamable HTTP. Never throws; checked before each run.
 *
 * @example
 * mcpHttp("issues", "https://mcp.example.com/mcp", { bearerTokenEnv: "ISSUES_TOKEN" })
 */
export function mcpHttp(name: string, url: string, options: McpRemoteOptions = {}): McpHttpServer {
  return Object.freeze({ ...options, name, transport: "http" as const, url });
}

/** Declares a remote MCP server over the legacy SSE transport. Never throws; checked before each run. */
export function mcpSse(name: string, url: string, options: McpRemoteOptions = {}): McpSseServer {
  return Object.freeze({ ...options, name, transport: "sse" as const, url });
}
