/** MCP transports a declaration can name: a local child over stdio, Streamable HTTP, or legacy SSE. */
export type McpTransport = "stdio" | "http" | "sse";

/** Fields every MCP declaration has. */
export interface McpServerBase {
  /**
   * Server name, unique per run: letters, digits, `_` and `-` (1–64 characters). The CLI names the
   * server's tools after it (Claude: `mcp__<name>__<tool>`).
   */
  readonly name: string;
  /** How the CLI reaches the server; fixes which other fields apply. */
  readonly transport: McpTransport;
  /**
   * When true, a server the CLI could not connect to fails the run with a typed error instead of
   * being skipped (the Claude driver reads the status from its `system init` line).
   * Default false.
   */
  readonly required?: boolean;
}

/** A local MCP server the CLI starts as a child and talks to over stdio. Built by `mcpStdio`. */
export interface McpStdioServer extends McpServerBase {
  readonly transport: "stdio";
  /** Executable, a path or a name on the CLI's `PATH`. */
  readonly command: string;
  /** Arguments, passed as is (no shell). */
  readonly args?: readonly string[];
  /**
   * Variables the server is started with. The server gets these plus a safe base of the CLI's
   * environment (PATH, HOME, USER, LOGNAME, SHELL, LANG, LC_*, TZ, TERM, TMPDIR, XDG directories,
   * proxies, CA certificates), never the CLI's credentials or other host variables unless
   * `inheritEnv` asks for them.
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Which variables of the CLI's environment the server keeps besides `env`: `true` all of them,
   * `false` none (not even the safe base), or a list of names kept in addition to the safe base
   * above (a trailing `*` matches a prefix, e.g. `["AWS_*", "GITHUB_TOKEN"]`), so a command found
   * on `PATH` still starts. Default: the safe base above.
   */
  readonly inheritEnv?: boolean | readonly string[];
}

/** A remote MCP server reached over Streamable HTTP (`http`) or SSE (`sse`). Built by `mcpHttp` / `mcpSse`. */
export interface McpRemoteServer extends McpServerBase {
  readonly transport: "http" | "sse";
  /** `http:` or `https:` URL of the endpoint. */
  readonly url: string;
  /** Extra request headers. Written only to the run's private 0600 config file, never to argv. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Name of an environment variable holding a bearer token; at run time its value becomes the
   * `Authorization: Bearer <token>` header. Read from the run's `env`, else `process.env`; unset or
   * empty fails the run before launch with `ErrInvalidConfig`.
   */
  readonly bearerTokenEnv?: string;
}

/** A Streamable HTTP server declaration. */
export interface McpHttpServer extends McpRemoteServer {
  readonly transport: "http";
}

/** A legacy SSE server declaration. */
export interface McpSseServer extends McpRemoteServer {
  readonly transport: "sse";
}

/** Any MCP server declaration (`mcpStdio`, `mcpHttp`, `mcpSse`, or an object literal of that shape). */
export type McpServer = McpStdioServer | McpHttpServer | McpSseServer;

/**
 * A validated server in the shape drivers receive (structurally the driver SPI's
 * `McpServerConfig`): the bearer token already resolved into `headers`.
 */
export type ResolvedMcpServer =
  | {
      readonly name: string;
      readonly transport: "stdio";
      readonly command: string;
      readonly args?: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      readonly inheritEnv?: boolean | readonly string[];
      readonly required?: boolean;
    }
  | {
      readonly name: string;
      readonly transport: "http" | "sse";
      readonly url: string;
      readonly headers?: Readonly<Record<string, string>>;
      readonly required?: boolean;
    };
