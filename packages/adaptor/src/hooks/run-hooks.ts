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

/** What an `onSessionStart` hook sees. */
export interface SessionStartHookInput {
  /**
   * Why a session part starts: `compact` after a compaction, `clear` after a `/clear` prompt
   * (`startup` and `resume` are the agent's own start, before it takes the host's hooks on Claude
   * Code 2.1.332, which then does not call this hook for them).
   */
  readonly source: "startup" | "resume" | "clear" | "compact";
  /** The model the agent goes on with, when it says. */
  readonly model?: string;
}

/** What an `onSessionEnd` hook sees. */
export interface SessionEndHookInput {
  /** Why the session part ends, as the agent names it, e.g. `"clear"` (a `/clear` prompt) or `"resume"`. */
  readonly reason: string;
}

/** What an `onNotification` hook sees. */
export interface NotificationHookInput {
  /** The notification's text, e.g. `"Claude needs your permission to use Bash"`. */
  readonly message: string;
  /** Its title, when it has one. */
  readonly title?: string;
  /**
   * Its kind, as the agent names it, e.g. `"permission_prompt"` (Claude Code sends it once a
   * permission prompt, an `approval-request`, has waited 6 seconds for the host's answer).
   */
  readonly kind: string;
}

/** What an `onPreCompact` hook sees. */
export interface PreCompactHookInput {
  /** `manual` for a compaction asked for (a `/compact` prompt), `auto` for one the agent started as its context filled up. */
  readonly trigger: "manual" | "auto";
  /** The instructions given with `/compact` (its text after the command), when any. */
  readonly instructions?: string;
}

/** What an `onSubagentStart` hook sees. */
export interface SubagentStartHookInput {
  /** The subagent's id, as the agent names it (e.g. `"a16ccca00c35205c5"`). */
  readonly agentId: string;
  /** The subagent's type: its definition's name (an `agents` key, or e.g. `"general-purpose"`). */
  readonly agentType: string;
}

/** What an `onSubagentStop` hook sees. */
export interface SubagentStopHookInput {
  /** The subagent's id, as {@link SubagentStartHookInput.agentId}. */
  readonly agentId: string;
  /**
   * The subagent's type, as {@link SubagentStartHookInput.agentType}; empty for the agent's own
   * helpers (Claude Code's compaction runs as one).
   */
  readonly agentType: string;
  /** The text of the subagent's last message, when known. */
  readonly text?: string;
  /** True when the subagent goes on because an earlier `onSubagentStop` returned `continueWith`. */
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

/**
 * A `beforeToolCall` verdict: nothing (the call goes on), a denial, or an edited input and/or text
 * the model reads with the call's result (`additionalContext`, as Claude Code's `PreToolUse`
 * hook output carries it).
 */
export type BeforeToolCallVerdict =
  | void
  | undefined
  | { readonly deny: string }
  | { readonly updatedInput: Readonly<Record<string, unknown>>; readonly additionalContext?: string }
  | { readonly updatedInput?: Readonly<Record<string, unknown>>; readonly additionalContext: string };

/** An `afterToolCall` or `onPromptSubmit` verdict: nothing, or text the model reads with the result or prompt. */
export type ContextVerdict = void | undefined | { readonly additionalContext: string };

/** An `onStop` verdict: nothing (the agent stops), or a message it goes on with. */
export type StopVerdict = void | undefined | { readonly continueWith: string };

/** The verdict of a hook that only observes: nothing. */
export type ObserveVerdict = void | undefined;

/** A `beforeToolCall` hook. */
export type BeforeToolCallHook = (call: ToolCallHookInput, context: HookContext) => HookResult<BeforeToolCallVerdict>;

/** An `afterToolCall` hook. */
export type AfterToolCallHook = (call: ToolResultHookInput, context: HookContext) => HookResult<ContextVerdict>;

/**
 * A tool hook for the tools `matcher` names only. `matcher` is matched against the tool's name as
 * the agent calls it (the hook input's `agentToolName`, e.g. `"Bash"`, `"mcp__github__get_issue"`,
 * a host tool's `"mcp__adaptor__lookup"`), as the Claude Agent SDK's `matcher` is: empty or `"*"`
 * for every tool; names joined by `|` or `,` (letters, digits, `_`, `-`) for exactly those tools
 * (`"Write|Edit"`); anything else is a regular expression that must find a match in the name
 * (`"^mcp__github__"`). Where the agent takes the matcher (Claude Code) it is only stopped for
 * the calls it names, and applies its own tool aliases (`Task` names `Agent`); elsewhere the SDK
 * calls the hook for the matching calls only. A matcher that is not a list of names and not a
 * valid regular expression is refused before launch (`InvalidOptionError`).
 */
export interface MatchedToolHook<H> {
  /**
   * Which tools the hook is for, by the name the agent calls them: `""` or `"*"` for all, names
   * joined by `|` or `,` (`"Write|Edit"`), or a regular expression (`"^mcp__github__"`).
   */
  readonly matcher: string;
  /** The hook, called (or, for Claude Code, stopped at) only for the tool calls `matcher` names. */
  readonly hook: H;
}

/**
 * A tool hook option: one hook (for every tool), one {@link MatchedToolHook}, or several of either
 * as matcher groups, as the Claude Agent SDK takes several `{ matcher, hooks }` per event. Each
 * group is called for the tool calls its matcher names (a bare function: every call), one at a
 * time, in the order given. Their verdicts combine: before a call, the first `{ deny }` wins (the
 * call is denied with its reason, and later groups are not called for it), else the last
 * `{ updatedInput }` (each group sees the input the agent proposed); before and after a call, each
 * group's `{ additionalContext }`, in order, joined by a blank line. On Claude Code each group's matcher
 * is its own CLI hook matcher. An empty array, or an entry that is not a hook or a valid
 * {@link MatchedToolHook}, is refused before launch (`InvalidOptionError`, field e.g.
 * `hooks.beforeToolCall[1].matcher`).
 */
export type ToolHookOption<H> = H | MatchedToolHook<H> | readonly (H | MatchedToolHook<H>)[];

/** A hook's verdict, or a promise of it. */
export type HookResult<V> = V | Promise<V>;

/**
 * Host callbacks around a run's life (the `hooks` run option). Each is optional and may be async.
 * Where the agent can wait for a hook (`context.native`), its verdict is carried to the agent;
 * elsewhere the SDK calls it as it observes the run's events and only an empty verdict is valid.
 * Which agent carries which hook is in the README's hook table; `beforeToolCall` and the hooks of
 * the agent's life (`onSessionStart` to `onSubagentStop`) on an agent that cannot wait for them
 * are refused before launch (`FeatureUnsupportedError`, feature `hooks.<name>`). A tool hook may
 * be given with a `matcher` ({@link MatchedToolHook}) to be called for some tools only, and as an
 * array of matcher groups ({@link ToolHookOption}), each called for the calls it names.
 *
 * A hook that throws, rejects, or returns a verdict that is malformed or that the agent cannot
 * carry ends the run: the pending tool call is denied, and the run rejects with an `AdaptorError`
 * (`hook <name> failed`) whose cause is the hook's error, an `InvalidOptionError` (field
 * `hooks.<name>`) for a malformed verdict, or a `FeatureUnsupportedError` for a verdict the agent
 * cannot carry. So does a hook that has not settled within the run's `hookTimeoutMs` (default
 * 60 s): the cause is then a `DriverError` `TIMEOUT` (op `hook`, device `hooks.<name>`, the bound in
 * its message, no cause of its own). Hooks of
 * one run are called one at a time, in the order the agent reaches them.
 */
export interface RunHooks {
  /**
   * Before each tool call the agent starts (with a matcher, each call it names): return `{ deny: reason }` to stop it (the model reads
   * the reason as the call's result), `{ updatedInput }` to run it with another input (the
   * approval policy still applies to the edited call), `{ additionalContext }` (alone or with
   * `updatedInput`) for the model to read with the call's result, or nothing to let it go on.
   * Native only. A host tool's call (the Agent's `tools`) is asked about by the SDK's host-tool
   * server, once, before its approval and handler, so a deny holds for every request that reaches
   * that server.
   */
  readonly beforeToolCall?: ToolHookOption<BeforeToolCallHook>;
  /**
   * After each tool call (with a matcher, each call it names), with its result. Native: return `{ additionalContext }` for the model to
   * read with the result. Observed: called at the event stream's `tool-result`.
   */
  readonly afterToolCall?: ToolHookOption<AfterToolCallHook>;
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
  /**
   * When a session part starts within the run: after a compaction (`source: "compact"`) or a
   * `/clear` prompt (`"clear"`). Return `{ additionalContext }` for the model to read with the
   * next prompt the agent's process takes (on a thread: the next turn with the same hooks).
   * Native only (Claude Code); refused before launch elsewhere.
   */
  readonly onSessionStart?: (start: SessionStartHookInput, context: HookContext) => HookResult<ContextVerdict>;
  /**
   * When a session part ends within the run (a `/clear` prompt: `reason: "clear"`). Observes: the
   * agent waits for it, and only an empty verdict is valid. Not called when the agent's process
   * exits. Native only (Claude Code); refused before launch elsewhere.
   */
  readonly onSessionEnd?: (end: SessionEndHookInput, context: HookContext) => HookResult<ObserveVerdict>;
  /**
   * When the agent notifies its user (e.g. a permission prompt still unanswered after a while).
   * Observes: only an empty verdict is valid. Native only (Claude Code); refused before launch elsewhere.
   */
  readonly onNotification?: (notification: NotificationHookInput, context: HookContext) => HookResult<ObserveVerdict>;
  /**
   * Before the agent compacts its context (a `/compact` prompt, or automatically); the `notice`
   * `context.compacted` follows once it did. Observes: only an empty verdict is valid. Native only
   * (Claude Code); refused before launch elsewhere.
   */
  readonly onPreCompact?: (compact: PreCompactHookInput, context: HookContext) => HookResult<ObserveVerdict>;
  /**
   * When a subagent starts (a delegation, the `Agent` tool). Return `{ additionalContext }` for the
   * subagent's model to read. Native only (Claude Code); refused before launch elsewhere.
   */
  readonly onSubagentStart?: (start: SubagentStartHookInput, context: HookContext) => HookResult<ContextVerdict>;
  /**
   * When a subagent is about to end its work, each time it is. `{ continueWith }` makes it go on,
   * reading that text; the next call then has `continued: true`. Native only (Claude Code);
   * refused before launch elsewhere.
   */
  readonly onSubagentStop?: (stop: SubagentStopHookInput, context: HookContext) => HookResult<StopVerdict>;
}
