/** Most messages one page of a session's messages holds. */
export const MAX_MESSAGE_PAGE_LIMIT = 1000;
/** Messages per page when a read names no `limit`. */
export const DEFAULT_MESSAGE_PAGE_LIMIT = 100;

/**
 * Which page of a CLI session's messages to read (`agent.getSessionMessages(sessionId, query)`,
 * `Driver.getSessionMessages`).
 */
export interface SessionMessagesQuery {
  /** The most messages in one page, an integer in [1, 1000]. Default 100. */
  readonly limit?: number;
  /** Where the page starts: the `nextCursor` of the previous page, as it was given. Absent: the first page. */
  readonly cursor?: string;
}

/** A tool call of an assistant message, named as on a transcript item (`TranscriptItem`). */
export interface SessionToolCall {
  /** Provider tool call id, e.g. `"toolu_1"` (Claude Code), `"call_…"` (Codex); its result names it. */
  readonly toolCallId: string;
  /** Tool name as the CLI knows it, e.g. `"Bash"` (Claude Code), `"shell"` (Codex), as on the `tool-call` event. */
  readonly toolName: string;
  /** The complete input of the call, as the CLI recorded it (Codex's shell call: `{ command, cwd }`). */
  readonly input: unknown;
}

/** The result of a tool call, on the assistant message that holds the call. */
export interface SessionToolResult {
  /** The `toolCallId` of the call it answers. */
  readonly toolCallId: string;
  /** Text of the result, as on the `tool-result` event (`output`). */
  readonly output: string;
  /** True when the tool failed or was denied; absent when the CLI recorded neither. */
  readonly isError?: boolean;
}

/**
 * An image of a user message, named but not carried: its bytes stay in the CLI's transcript (a
 * page of messages is bounded in bytes, and one pasted screenshot could take most of it).
 */
export interface SessionImage {
  /** Its media type as the CLI recorded it, e.g. `"image/png"`; absent when the CLI recorded none (an image given by URL). */
  readonly mediaType?: string;
  /** Its size in bytes (decoded), when the CLI recorded the image itself rather than a URL. */
  readonly byteLength?: number;
}

/**
 * One message of a CLI session's conversation, the same shape for every CLI. `user`: a prompt the
 * user (or an app) sent. `assistant`: one reply of the model: its text (empty when it only called
 * tools), the tool calls it made and, once the CLI recorded them, their results (a tool result the
 * CLI sends the model back as a user turn belongs to the call, not to the user).
 */
export interface SessionMessage {
  /** Who said it. */
  readonly role: "user" | "assistant";
  /** Its text (text blocks joined); `""` for a reply with tool calls only. Thinking is not shown. */
  readonly text: string;
  /**
   * The images of a user message (a prompt's `images`), in order, without their bytes; absent when
   * it has none. Claude Code only: the other drivers do not list them.
   */
  readonly images?: readonly SessionImage[];
  /** The tool calls of an assistant message, in order; absent when it made none. */
  readonly toolCalls?: readonly SessionToolCall[];
  /** Results of its tool calls the CLI recorded, in order; absent when there are none. */
  readonly toolResults?: readonly SessionToolResult[];
  /** When the CLI recorded the message, when it says. */
  readonly at?: Date;
  /** The CLI's own id of the message, when it has one (Claude Code: the entry's `uuid`; Codex: the item's `id`). */
  readonly id?: string;
}

/** One page of a session's messages. */
export interface SessionMessagePage {
  /** Messages, oldest first. */
  readonly messages: SessionMessage[];
  /** Pass as `cursor` for the next page; absent on the last page. */
  readonly nextCursor?: string;
  /**
   * True on an empty first page when nothing confirms the session exists: an ACP agent that
   * answered `session/load` without replaying a message (@sudocode-ai/claude-code-acp 0.13.10
   * answers so for any id, its own or a made-up one) and offers no `session/list` to check it
   * against (one it offers is read: a session it does not list is `ErrResumeRejected`). Such a page
   * cannot tell an empty session from one the agent does not hold. Absent otherwise (a page with
   * messages, or a session the agent's listing names).
   */
  readonly unconfirmed?: true;
}

/** A read as a driver is asked for it: the query checked, the defaults applied, and the run's environment. */
export interface DriverSessionMessagesQuery {
  /** The CLI's own id of the session (as `SessionSummary.sessionId`), a non-empty string. */
  readonly sessionId: string;
  /** The page size, in [1, 1000]. */
  readonly limit: number;
  /** As {@link SessionMessagesQuery.cursor}. */
  readonly cursor?: string;
  /** The extra environment a run of the Agent gets (it may name the CLI home, e.g. `CLAUDE_CONFIG_DIR`, `CODEX_HOME`). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The Agent's `cwd` (an absolute directory), where a driver that starts a process to read the
   * session starts it (an ACP agent loads the session in it); absent when the Agent has none, and
   * the driver's own `cwd` then applies.
   */
  readonly cwd?: string;
}
