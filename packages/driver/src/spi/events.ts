/**
 * Events a driver emits through {@link DriverSink.emit}. The SDK adds `meta` (run id, sequence,
 * time) and the lifecycle events (`run-started`, `approval-request`, `dropped`, `run-finished`),
 * which are the SDK's alone: an event of any other type than these six that a driver emits is
 * dropped and counted in a `driver.contract` notice.
 */
export type DriverEvent = TextDeltaEvent | ThinkingDeltaEvent | ToolCallEvent | ToolResultEvent | NoticeEvent | ProcessEvent;

/** A piece of assistant text. */
export interface TextDeltaEvent {
  readonly type: "text-delta";
  /** A piece of assistant text; the deltas of a message concatenate to its text. */
  readonly text: string;
  /** Provider message id, when known. */
  readonly messageId?: string;
}

/** A piece of model reasoning. */
export interface ThinkingDeltaEvent {
  readonly type: "thinking-delta";
  /** A piece of model reasoning. */
  readonly text: string;
  /** Provider message id, when known. */
  readonly messageId?: string;
}

/** A tool call: `start` (name known), `args` (an argument fragment), `end` (complete input). */
export interface ToolCallEvent {
  readonly type: "tool-call";
  /** `start` (the name is known), `args` (an argument fragment), `end` (the complete input). */
  readonly phase: "start" | "args" | "end";
  /** Provider tool call id, e.g. `"toolu_1"`. */
  readonly id: string;
  /**
   * Tool name as the CLI knows it, e.g. `"Bash"`, the same on every phase of the call (an `args`
   * event repeats the `start`'s). At most 200 characters (`TOOL_NAME_MAX_LENGTH`): the SDK cuts a
   * longer one, the model's text, to its first 200, as Claude Code does.
   */
  readonly name: string;
  /** Argument JSON fragment (phase `args`). */
  readonly argsDelta?: string;
  /**
   * The complete input (phase `end`). Nested at most 64 levels (`JSON_DEPTH_MAX`): the SDK replaces
   * a deeper object or array by the string `JSON_DEPTH_PLACEHOLDER`, so that the event encodes as JSON.
   */
  readonly input?: unknown;
  /**
   * What the call does, when the CLI says so (ACP agents' tool `kind`): `read`, `search`, `think`
   * and `fetch` read or reason; `edit`, `delete`, `move` and `execute` can change the machine;
   * `switch_mode` changes the agent's mode; `other` is anything else. Absent: not known. A call of
   * kind `read`, `search` or `think` gets no `approval.unasked` notice, unless a deny rule of the
   * run names it.
   */
  readonly kind?: "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "switch_mode" | "other";
  /**
   * The id of the tool call that started the subagent making this call (the delegation's
   * `tool-call` `id`), when the agent says so (Claude Code: the stream-json line's
   * `parent_tool_use_id`). Absent for a call of the main conversation, and where the agent does
   * not say (Codex, ACP agents).
   */
  readonly parentToolCallId?: string;
}

/** The result a tool call produced, as the CLI reported it. */
export interface ToolResultEvent {
  readonly type: "tool-result";
  /** The tool call id this answers. */
  readonly id: string;
  /** Tool name, when known; at most 200 characters, as on {@link ToolCallEvent.name}. */
  readonly name?: string;
  /** Text content of the result. */
  readonly output: string;
  /** True when the tool failed or was denied. */
  readonly isError: boolean;
  /**
   * The exit code of a shell command, an integer, when it is known: Codex's command executions
   * (both transports); an ACP agent's call that ran its command in a terminal the host served
   * (`terminal/*`, named in the call's content), once that terminal exited. Absent for other tools,
   * for a command that never ran or was killed by a signal, and where the agent gives only text
   * (Claude Code's `Bash` result, whose text may say "Exit code N"; an ACP agent running commands
   * itself).
   */
  readonly exitCode?: number;
  /**
   * The id of the tool call that started the subagent that made the call (the delegation's
   * `tool-call` `id`), when the agent says so (Claude Code: the stream-json line's
   * `parent_tool_use_id`). Absent for a call of the main conversation, and where the agent does
   * not say (Codex, ACP agents).
   */
  readonly parentToolCallId?: string;
  /**
   * True when an approval the host answered covered this call although it did not name the call's
   * id (an ACP agent's command run in a host terminal whose `terminal/create` the host itself asked
   * about and approved; a command or patch Codex ran unasked within an earlier `acceptForSession`
   * answer: the same command in the same folder, a patch of only the granted patch's files). Such a call is not one that ran unasked: it gets no `approval.unasked`
   * notice and does not fail the run, unless a deny rule of the run (given before it or remembered
   * since) names it. Absent otherwise.
   */
  readonly coveredByAsk?: true;
}

/** Lifecycle, audit and transcript notes. `kind` examples: `lifecycle`, `runtime`, `transcript.item`, `approval.requested`. */
export interface NoticeEvent {
  readonly type: "notice";
  /** What the note is about, e.g. `lifecycle`, `runtime`, `approval.requested`, `mcp.status`. */
  readonly kind: string;
  /** For people. */
  readonly message?: string;
  /** Structured detail; nested at most 64 levels, as {@link ToolCallEvent.input}. */
  readonly data?: Readonly<Record<string, unknown>>;
}

/**
 * Process activity: spawn (pid), stderr text, a stdout line that was not JSON, exit. A driver may
 * emit `exit` itself; when it does not and its response carries `exit`, the SDK emits it (`pid` of
 * the process that served the run, `text` `code <n>` or `signal <name>`).
 */
export interface ProcessEvent {
  readonly type: "process";
  /** `spawn` (a CLI process started), `stdout` (a line that was not protocol JSON), `stderr` (stderr text), `exit`. */
  readonly kind: "spawn" | "stdout" | "stderr" | "exit";
  /** The line or text, for `stdout` and `stderr`; `code <n>` or `signal <name>` for `exit`. */
  readonly text?: string;
  /** Process id, for `spawn` and `exit`. */
  readonly pid?: number;
}
