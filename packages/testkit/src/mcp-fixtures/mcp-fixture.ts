import { fileURLToPath } from "node:url";

/**
 * Absolute path of the stdio MCP fixture server (`src/mcp-fixtures/stdio-server.mjs`), a real MCP
 * server built with `@modelcontextprotocol/sdk`. Resolved from this module's URL, so it works from
 * `src` and `dist`.
 */
export const mcpFixturePath: string = fileURLToPath(new URL("../../src/mcp-fixtures/stdio-server.mjs", import.meta.url));

/** Text the fixture's `echo` tool appends to every answer, to find it in a request log. */
export const MCP_FIXTURE_MARKER = "MCP_FIXTURE_OK";

/** Options of {@link mcpFixtureCommand}. */
export interface McpFixtureOptions {
  /** Name the server reports in `initialize`. Default `"adaptor-fixture"`. */
  readonly name?: string;
  /** File the server appends one JSON line to per event (`start`, `call`, `crash`, `fail-start`). */
  readonly logFile?: string;
  /** Every `tools/call` makes the process exit (code 7) before it answers: a crash mid-call. */
  readonly crashOnCall?: boolean;
  /** Exit 1 at once, before the MCP handshake: a server that cannot start. */
  readonly failStart?: boolean;
  /** Each `call` entry of the log also holds the server's whole environment (`env`): for tests of what a CLI passes its servers. */
  readonly logEnv?: boolean;
}

/**
 * How to start the fixture: `{ command: process.execPath, args: [path, ...flags] }`, ready for
 * `mcpStdio(name, command, { args })`. Its tools: `echo { text }` answers
 * `echo: <text> (MCP_FIXTURE_OK)`; `crash {}` always exits mid-call; `elicit {}` asks the client for a
 * form (`name` string, required; `age` integer ≥ 0) and answers `elicit: <action> <content JSON>`;
 * `elicit_url {}` asks it to open a URL and answers `elicit_url: <action>` (each logged as `elicit`).
 */
export function mcpFixtureCommand(options: McpFixtureOptions = {}): { command: string; args: string[] } {
  const args = [mcpFixturePath];
  if (options.name !== undefined) args.push(`--name=${options.name}`);
  if (options.logFile !== undefined) args.push(`--log=${options.logFile}`);
  if (options.crashOnCall) args.push("--crash-on-call");
  if (options.failStart) args.push("--fail-start");
  if (options.logEnv) args.push("--log-env");
  return { command: process.execPath, args };
}

/** One line of the fixture's log file. */
export interface McpFixtureLogEntry {
  /** What happened: the server started, a tool was called, it crashed, or it failed to start. */
  readonly event: "start" | "call" | "crash" | "fail-start" | "elicit";
  /** Tool name, for `call`, `crash` and `elicit`. */
  readonly tool?: string;
  /** The `echo` input text, for `call`. */
  readonly text?: string;
  /** The environment of the server that answered, for `call` of `echo` with {@link McpFixtureOptions.logEnv}. */
  readonly env?: Readonly<Record<string, string>>;
  /** The client's answer to an elicitation (`accept`, `decline`, `cancel`), for `elicit`. */
  readonly action?: string;
  /** The content the client accepted with, for `elicit`. */
  readonly content?: Readonly<Record<string, unknown>>;
  /** Why the elicitation failed (the client does not take elicitations, or answered an error), for `elicit`. */
  readonly error?: string;
  /** The server name given with `--name`. */
  readonly name?: string;
  /** Process id of the fixture server. */
  readonly pid: number;
  /** ms since the epoch. */
  readonly time: number;
}
