import type { McpServerState, NoticeEvent, Usage } from "@adaptor/driver";
import type { AgentEvent } from "./agent-event.js";

/** An MCP server of a `session.init` notice, as the CLI reported it. */
export interface SessionInitMcpServer {
  /** The server's name in the CLI's config, e.g. `"adaptor"`. */
  readonly name: string;
  /** Its connection status as the CLI words it, e.g. `"connected"`, `"failed"`. */
  readonly status: string;
}

/**
 * The `data` of the notice kinds docs/events.md documents with a shape, by kind. Each field is
 * there only when the CLI reported it. Narrow an event to one with {@link isNotice}.
 */
export interface NoticeData {
  /**
   * Claude Code's (and CodeBuddy Code's) `system` `init` line, at the start of each run: what the
   * CLI set the session up with (the Claude Agent SDK's `SDKSystemMessage`). Codex (both
   * transports) and ACP agents emit it too, once per run as soon as the session is open:
   * `sessionId`, and `model` and `cwd` where the CLI reports them (Codex app-server: both; ACP: `cwd`).
   */
  readonly "session.init": {
    /** The CLI's session id (Codex: the thread id): what `result.sessionId` will be. */
    readonly sessionId?: string;
    /** The model the session runs on. */
    readonly model?: string;
    /** The session's working directory (absolute path). */
    readonly cwd?: string;
    /** The tool names offered to the model, e.g. `"Bash"`, `"mcp__adaptor__lookup"`. */
    readonly tools?: readonly string[];
    /** The MCP servers and their status. */
    readonly mcpServers?: readonly SessionInitMcpServer[];
    /** The CLI's permission mode, e.g. `"default"`, `"plan"`. */
    readonly permissionMode?: string;
    /** The slash commands the session knows. */
    readonly slashCommands?: readonly string[];
    /** The subagents the session can start. */
    readonly agents?: readonly string[];
    /** The skills the session loaded. */
    readonly skills?: readonly string[];
    /** The CLI's version, e.g. `"2.1.332"`. */
    readonly cliVersion?: string;
  };
  /**
   * The CLI replaced the conversation's history with a summary (Claude Code's `compact_boundary`
   * line, Codex app-server's `contextCompaction` item).
   */
  readonly "context.compacted": {
    /** `"manual"` for a `/compact` prompt, `"auto"` when the context was full. */
    readonly trigger?: "manual" | "auto";
    /** The context's size before, in tokens (Claude Code). */
    readonly preTokens?: number;
    /** The context's size after, in tokens (Claude Code, when reported). */
    readonly postTokens?: number;
  };
  /**
   * The run's MCP servers and their state, in one shape for every driver: Claude Code (and
   * CodeBuddy Code) at the `system` `init` line (a while later when a server is not connected: the
   * driver asks the CLI for its error first), Codex app-server before the turn (once each server
   * is ready, failed or cancelled), ACP agents after a turn for the stdio servers not running.
   */
  readonly "mcp.status": {
    /** Each server, e.g. `{ name: "files", status: "failed", cliStatus: "failed", error: "Connection closed" }`. */
    readonly servers?: readonly McpServerState[];
  };
  /** One model response of the main conversation: what `budget.maxTurns` counts and `result.numTurns` reports. */
  readonly "model.response": {
    /** The response's message id (Claude Code). */
    readonly messageId?: string;
    /** The model that wrote it (Claude Code). */
    readonly model?: string;
    /** The token counts of the response (Codex app-server). */
    readonly usage?: Usage;
  };
  /** The CLI resolved the model alias asked for (e.g. `opus`) to a model id. */
  readonly "model.resolved": ModelDifference;
  /** The CLI uses another model than the one asked for (a replaced id, or its fallback model). */
  readonly "model.substituted": ModelDifference;
  /** A message the host sent with `stream.send(message)` was taken into the running turn. */
  readonly "input.accepted": {
    /** The message's text. */
    readonly text?: string;
  };
}

/** The `data` of a `model.resolved` or `model.substituted` notice. */
export interface ModelDifference {
  /** The model asked for (the run's `model` option or a later `stream.setModel`). */
  readonly requested?: string;
  /** The model the CLI used. */
  readonly used?: string;
  /** Why Claude Code switched to its `--fallback-model`, e.g. `"model_not_found"`. */
  readonly trigger?: string;
}

/** A notice event of kind `K` whose `data` has that kind's documented shape ({@link NoticeData}). */
export type NoticeOf<K extends keyof NoticeData> = Extract<AgentEvent, { type: "notice" }> &
  Omit<NoticeEvent, "kind" | "data"> & {
    readonly kind: K;
    readonly data?: NoticeData[K];
  };

/**
 * True when `event` is a `notice` of `kind`; narrows `event.kind` to `kind` and `event.data` to its
 * documented shape ({@link NoticeData}), so its fields read without casts:
 * `if (isNotice(event, "session.init")) event.data?.tools` is `readonly string[] | undefined`.
 * The guard checks the type and the kind only: the drivers build the `data`.
 */
export function isNotice<K extends keyof NoticeData>(event: AgentEvent, kind: K): event is NoticeOf<K> {
  return event.type === "notice" && event.kind === kind;
}
