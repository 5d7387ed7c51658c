/**
 * A point in a run where the host's hook can be called: before a tool call runs, after it ran,
 * when a prompt is submitted, when the agent stops its turn; and the agent's own life events: a
 * session part starts or ends (`sessionStart`, `sessionEnd`), it notifies its user
 * (`notification`), it compacts its context (`preCompact`), a subagent starts or stops
 * (`subagentStart`, `subagentStop`).
 */
export type HookPoint =
  | "beforeToolCall"
  | "afterToolCall"
  | "promptSubmit"
  | "stop"
  | "sessionStart"
  | "sessionEnd"
  | "notification"
  | "preCompact"
  | "subagentStart"
  | "subagentStop";

/** The hook points about one tool call, whose hook may name the tools it is for (see `DriverRequest.hookMatchers`). */
export type ToolHookPoint = "beforeToolCall" | "afterToolCall";

/** What a driver asks the host's hook at a {@link HookPoint} (see {@link DriverSink.hook}). */
export type HookAsk =
  | {
      readonly point: "beforeToolCall";
      /** Provider id of the tool call, when known. */
      readonly toolCallId?: string;
      /** The delegation's tool call id when a subagent makes the call (see `ToolCallEvent.parentToolCallId`). */
      readonly parentToolCallId?: string;
      /** The tool's name as the CLI knows it, e.g. `"Bash"`. */
      readonly toolName: string;
      /** The input the agent proposes. */
      readonly input: unknown;
      /**
       * The matcher group the agent stopped for: an index into `DriverRequest.hookMatchers[point]`,
       * set by a driver that hands its CLI one matcher per group. Absent: every group whose
       * matcher names the tool.
       */
      readonly group?: number;
    }
  | {
      readonly point: "afterToolCall";
      readonly toolCallId?: string;
      readonly parentToolCallId?: string;
      readonly toolName: string;
      /** The input the tool ran with. */
      readonly input: unknown;
      /** The tool's result: its text, or the CLI's own structured response. */
      readonly output: unknown;
      /** True when the tool failed. */
      readonly isError: boolean;
      /** The matcher group the agent called the hook for, as for `beforeToolCall`. */
      readonly group?: number;
    }
  | {
      readonly point: "promptSubmit";
      /** The prompt's text, as the agent took it in. */
      readonly prompt: string;
    }
  | {
      readonly point: "stop";
      /** The text of the agent's last message, when known. */
      readonly text?: string;
      /** True when the agent is already going on because an earlier stop hook asked it to. */
      readonly continued?: boolean;
    }
  | {
      readonly point: "sessionStart";
      /** Why the session part starts: a new one, a resumed one, after a clear, after a compaction. */
      readonly source: "startup" | "resume" | "clear" | "compact";
      /** The model the agent goes on with, when it says. */
      readonly model?: string;
    }
  | {
      readonly point: "sessionEnd";
      /** Why it ends, as the agent says (e.g. `"clear"`, `"resume"`, `"other"`). */
      readonly reason: string;
    }
  | {
      readonly point: "notification";
      /** The notification's text, e.g. `"Claude needs your permission to use Bash"`. */
      readonly message: string;
      /** Its title, when it has one. */
      readonly title?: string;
      /** Its kind, as the agent names it (e.g. `"permission_prompt"`). */
      readonly kind: string;
    }
  | {
      readonly point: "preCompact";
      /** `manual` for a compaction asked for (a `/compact` prompt), `auto` for one the agent started as its context filled up. */
      readonly trigger: "manual" | "auto";
      /** The instructions given with `/compact`, when any. */
      readonly instructions?: string;
    }
  | {
      readonly point: "subagentStart";
      /** The subagent's id, as the agent names it. */
      readonly agentId: string;
      /** The subagent's type (its definition's name, e.g. `"general-purpose"`); empty for the agent's own helpers. */
      readonly agentType: string;
    }
  | {
      readonly point: "subagentStop";
      /** The subagent's id, as its `subagentStart` named it. */
      readonly agentId: string;
      /** The subagent's type, as its `subagentStart` named it (empty for the agent's own helpers). */
      readonly agentType: string;
      /** The text of the subagent's last message, when known. */
      readonly text?: string;
      /** True when the subagent is already going on because an earlier subagent-stop hook asked it to. */
      readonly continued?: boolean;
    };

/**
 * The host's answer, as the driver forwards it to the CLI. Each field is set only at a point whose
 * native support the driver declares: `deny`, `updatedInput` and `additionalContext` at
 * `beforeToolCall` (`deny` alone), `additionalContext` at `afterToolCall`, `promptSubmit`,
 * `sessionStart` and `subagentStart`,
 * `continueWith` at `stop` and `subagentStop`. Empty: the hook only observed, the CLI goes on as
 * it would without it.
 */
export interface HookAnswer {
  /** Do not run the tool call; the reason is what the model reads instead of its result. */
  readonly deny?: string;
  /** Run the tool call with this input instead of the proposed one (a plain object). */
  readonly updatedInput?: Readonly<Record<string, unknown>>;
  /**
   * Text the model reads with the tool's result (before or after the call), the prompt, the
   * session's start, or (its own model) the subagent's start.
   */
  readonly additionalContext?: string;
  /** Do not stop: the agent (or at `subagentStop` the subagent) goes on, reading this text. */
  readonly continueWith?: string;
}
