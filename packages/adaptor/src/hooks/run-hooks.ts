/** The tool call a `beforeToolCall` hook is asked about. */
export interface ToolCallHookInput {
  /** Provider id of the tool call (e.g. `"toolu_1"`), when the agent reports one. */
  readonly toolCallId?: string;
  /**
   * The id of the tool call that started the subagent making this call (the delegation's
   * `toolCallId`), when the agent says so (Claude Code); absent for the main conversation's calls.
   */
  readonly parentToolCallId?: string;
  /**
   * The tool's name, e.g. `"Bash"` or `"mcp__host__lookup"`; a host tool (the Agent's `tools`) by
   * its own name, e.g. `"lookup"`, as approvals name it.
   */
  readonly toolName: string;
  /**
   * The tool's name as the agent calls it, which `tool-call` events carry: `toolName` but for a
   * host tool, whose name here is its wire name (`"mcp__adaptor__lookup"` on Claude Code and
   * Codex).
   */
  readonly agentToolName: string;
  /** The input the agent proposes (before the call) or ran it with (after it). */
  readonly input: unknown;
}

/** The tool call and its result an `afterToolCall` hook sees. */
export interface ToolResultHookInput extends ToolCallHookInput {
  /**
   * The tool's result: the agent's own structured response where it reports one (Claude Code,
   * e.g. `{ stdout, stderr }` for `Bash`), else its text; for a failed call, the error text.
   */
  readonly output: unknown;
  /** True when the tool failed (or, from the event stream, was denied). */
  readonly isError: boolean;
}

/** What an `onPromptSubmit` hook sees. */
export interface PromptSubmitHookInput {
  /** The prompt's text. */
  readonly prompt: string;
}

/** What an `onStop` hook sees. */
export interface StopHookInput {
  /** The text of the agent's last message (observed: the run's final text), when known. */
  readonly text?: string;
  /** True when the agent goes on because an earlier `onStop` returned `continueWith`. */
  readonly continued?: boolean;
}

/** What every hook gets besides its input. */
export interface HookContext {
  /** The run's id (UUID v7). */
  readonly runId: string;
  /** Aborted when the run ends or is cancelled: a hook still working should stop; its answer is then ignored. */
  readonly signal: AbortSignal;
  /**
   * True when the agent waits for this hook and can carry its verdict (see the README's hook
   * table); false when the SDK calls it as it observes the run, after the fact, and only an empty
   * verdict is valid.
   */
  readonly native: boolean;
}

/** A `beforeToolCall` verdict: nothing (the call goes on), a denial, or an edited input. */
export type BeforeToolCallVerdict =
  void | undefined | { readonly deny: string } | { readonly updatedInput: Readonly<Record<string, unknown>> };

/** An `afterToolCall` or `onPromptSubmit` verdict: nothing, or text the model reads with the result or prompt. */
export type ContextVerdict = void | undefined | { readonly additionalContext: string };

/** An `onStop` verdict: nothing (the agent stops), or a message it goes on with. */
export type StopVerdict = void | undefined | { readonly continueWith: string };

/** A hook's verdict, or a promise of it. */
export type HookResult<V> = V | Promise<V>;

/**
 * Host callbacks around a run's life (the `hooks` run option). Each is optional and may be async.
 * Where the agent can wait for a hook (`context.native`), its verdict is carried to the agent;
 * elsewhere the SDK calls it as it observes the run's events and only an empty verdict is valid.
 * Which agent carries which hook is in the README's hook table; `beforeToolCall` on an agent that
 * cannot wait for it is refused before launch (`FeatureUnsupportedError`, feature
 * `hooks.beforeToolCall`).
 *
 * A hook that throws, rejects, or returns a verdict that is malformed or that the agent cannot
 * carry ends the run: the pending tool call is denied, and the run rejects with an `AdaptorError`
 * (`hook <name> failed`) whose cause is the hook's error, an `InvalidOptionError` (field
 * `hooks.<name>`) for a malformed verdict, or a `FeatureUnsupportedError` for a verdict the agent
 * cannot carry. Hooks of one run are called one at a time, in the order the agent reaches them.
 */
export interface RunHooks {
  /**
   * Before each tool call the agent starts: return `{ deny: reason }` to stop it (the model reads
   * the reason as the call's result), `{ updatedInput }` to run it with another input (the
   * approval policy still applies to the edited call), or nothing to let it go on. Native only.
   */
  readonly beforeToolCall?: (call: ToolCallHookInput, context: HookContext) => HookResult<BeforeToolCallVerdict>;
  /**
   * After each tool call, with its result. Native: return `{ additionalContext }` for the model to
   * read with the result. Observed: called at the event stream's `tool-result`.
   */
  readonly afterToolCall?: (call: ToolResultHookInput, context: HookContext) => HookResult<ContextVerdict>;
  /**
   * When the run's prompt is submitted to the agent. Native: the agent waits for it before it sends the prompt to its model,
   * and `{ additionalContext }` reaches the model with the prompt. Observed: before the agent starts.
   */
  readonly onPromptSubmit?: (prompt: PromptSubmitHookInput, context: HookContext) => HookResult<ContextVerdict>;
  /**
   * When the agent is about to end its turn. Native: each time it is (its model answered without a
   * tool call), and `{ continueWith }` makes it go on, reading that text; the next call then has
   * `continued: true`. Observed: once, when the agent finished without failure (not for an
   * interrupted turn), before the run's verdict.
   */
  readonly onStop?: (stop: StopHookInput, context: HookContext) => HookResult<StopVerdict>;
}
