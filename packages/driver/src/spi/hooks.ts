/**
 * A point in a run where the host's hook can be called: before a tool call runs, after it ran,
 * when a prompt is submitted, when the agent stops its turn.
 */
export type HookPoint = "beforeToolCall" | "afterToolCall" | "promptSubmit" | "stop";

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
    };

/**
 * The host's answer, as the driver forwards it to the CLI. Each field is set only at a point whose
 * native support the driver declares: `deny` and `updatedInput` at `beforeToolCall`,
 * `additionalContext` at `afterToolCall` and `promptSubmit`, `continueWith` at `stop`. Empty: the
 * hook only observed, the CLI goes on as it would without it.
 */
export interface HookAnswer {
  /** Do not run the tool call; the reason is what the model reads instead of its result. */
  readonly deny?: string;
  /** Run the tool call with this input instead of the proposed one (a plain object). */
  readonly updatedInput?: Readonly<Record<string, unknown>>;
  /** Text the model reads with the tool's result or the prompt. */
  readonly additionalContext?: string;
  /** Do not stop: the agent goes on, reading this text. */
  readonly continueWith?: string;
}
