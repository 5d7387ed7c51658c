import type { HookPoint } from "./hooks.js";
import type { ReasoningEffort } from "./request.js";

/** Sandbox levels a run policy may request. */
export type SandboxMode = "read_only" | "workspace_write" | "unrestricted";
/** Allow or deny a capability such as web search or a browser. */
export type AllowDeny = "allow" | "deny";
/** How an approval kind is decided. `inherit` defers to the CLI's own configuration. */
export type ApprovalMode = "inherit" | "ask" | "auto_approve" | "auto_deny";
/**
 * The kinds of approval a CLI can ask for: a tool call (`permission`), a plan (`plan_review`), a
 * question the model asks the user (`question`), and an MCP server's request for input from the
 * user, a form or a URL to open (`elicitation`).
 */
export type ApprovalKind = "permission" | "plan_review" | "question" | "elicitation";
/** MCP transports. */
export type McpTransport = "stdio" | "http" | "sse";

/**
 * What a driver can honestly do. A driver declares only what its tests prove against the real
 * binary (docs/design.md "Drivers"); the SDK refuses requests outside it before launch.
 */
export interface DriverCapabilities {
  /**
   * Resume and fork of provider sessions. `fromCheckpoint`: a resumed session starts exactly at
   * the checkpoint it is given (`request.session.data`), dropping whatever the CLI recorded after
   * it, so an older checkpoint can be resumed (what `thread.rewind()` needs). `modelSwitch`: a
   * resumed session continues on the run's `model` (`DriverRequest.model`) whatever model the turns
   * before it used, with its history intact; a thread's fingerprint then leaves the run's model out,
   * so a thread turn may change it. Without it a changed model makes the thread
   * `ErrThreadIncompatible`. `list`: the driver lists the CLI's own sessions in this host's CLI
   * home (`Driver.listSessions`, `agent.listSessions()`); without it a listing is refused
   * (`FeatureUnsupportedError`, feature `listSessions`). `messages`: the driver reads the messages
   * of one of those sessions by id (`Driver.getSessionMessages`, `agent.getSessionMessages()`);
   * without it a read is refused (`FeatureUnsupportedError`, feature `getSessionMessages`).
   * `info`: the driver reads one of those sessions' summary by id (`Driver.getSessionInfo`,
   * `agent.getSessionInfo()`). `rename` and `tag`: the driver gives one of those sessions a title
   * or a tag in the CLI's own form, which the CLI's own session picker shows (`Driver.renameSession`,
   * `Driver.tagSession`); without one the call is refused (`FeatureUnsupportedError`, feature
   * `getSessionInfo`, `renameSession` or `tagSession`). `forkSession`: the driver copies one of
   * those sessions into a new session of the CLI's own, by id and without a run
   * (`Driver.forkSession`, `agent.forkSession()`); not `fork`, which is a run's fork of the
   * session it resumes (`thread.fork()`); without it the call is refused (`FeatureUnsupportedError`,
   * feature `forkSession`). Defaults false.
   */
  readonly sessions: {
    readonly resume: boolean;
    readonly fork: boolean;
    readonly fromCheckpoint?: boolean;
    readonly modelSwitch?: boolean;
    readonly list?: boolean;
    readonly messages?: boolean;
    readonly info?: boolean;
    readonly rename?: boolean;
    readonly tag?: boolean;
    readonly forkSession?: boolean;
  };
  /** A live process can serve several turns of one thread. */
  readonly processReuse: boolean;
  /** Native JSON Schema enforcement, and prompt instructions plus local validation. */
  readonly structuredOutput: { readonly native: boolean; readonly prompt: boolean };
  /**
   * The driver stages `DriverRequest.skills` where its CLI loads them, so their names and
   * descriptions reach the model; absent or false: a run with skills is refused before launch
   * (`FeatureUnsupportedError`, feature `"skills"`).
   */
  readonly skills?: boolean;
  /**
   * MCP support. `transports`: the MCP transports the CLI accepts; empty means no MCP. `callIds`:
   * the CLI sends every MCP `tools/call` request with the id of the call's `tool-call` event in
   * its `_meta` (Claude Code's `claudecode/toolUseId`, Codex's `callId`), and reports the call's
   * input (its `end` phase) before it calls; the host-tool server then refuses a request without an
   * id at once, as no call of the agent. Absent or false: the CLI sends no ids (Gemini CLI,
   * codex-acp), and a request is matched to a reported call by its tool and arguments.
   */
  readonly mcp: { readonly transports: readonly McpTransport[]; readonly callIds?: boolean };
  /** Policy values the driver can enforce; anything unlisted is refused when explicitly asked for. */
  readonly policy: {
    readonly sandbox: readonly SandboxMode[];
    readonly webSearch: readonly AllowDeny[];
    readonly browser: readonly AllowDeny[];
    readonly activeExecutionTimeout: boolean;
  };
  /**
   * Approval modes per kind. `elicitation` may be left out: the driver relays no MCP server's
   * elicitation, which is the same as `["inherit"]` (see `approvalModes` of `@adaptor/driver`).
   */
  readonly approvals: { readonly [K in Exclude<ApprovalKind, "elicitation">]: readonly ApprovalMode[] } & {
    readonly elicitation?: readonly ApprovalMode[];
  };
  /**
   * Why an approval mode the driver does not list in `approvals` is refused, with what to use
   * instead: the `reason` of the `HumanDecisionModeUnsupportedError` that refuses it (e.g. Codex
   * exec, which cannot ask the host). Absent: the refusal names no reason.
   */
  readonly approvalRefusalReason?: string;
  /**
   * Names of the tools (`tool-call` `name`) the CLI runs without asking under `ask` and
   * `auto_deny` because they have no effect outside the conversation (its reads, searches, the
   * session's own task list), as the driver's tests show on the real binary. The SDK raises no
   * `approval.unasked` notice for them; any other tool that runs unasked under those modes still
   * gets one (so does a call whose `tool-call` `kind` is `read`, `search` or `think`). A driver
   * that can make its CLI ask about one call does so for each a deny rule of the run names
   * (`DriverSink.ruleDenies`; Claude Code's every-call hook), so the rule denies it before it runs;
   * one that runs unasked all the same gets the notice and fails the run. Absent: none.
   */
  readonly askExemptTools?: readonly string[];
  /**
   * System prompt modes the driver delivers (`DriverRequest.systemPrompt`); absent or empty: none,
   * and a run with a system prompt is refused before launch (`FeatureUnsupportedError`).
   */
  readonly systemPrompt?: readonly ("replace" | "append")[];
  /**
   * The driver gives the model the prompt's images (`DriverRequest.images`); absent or false: a
   * prompt with an image is refused before launch (`FeatureUnsupportedError`).
   */
  readonly images?: boolean;
  /**
   * The driver delivers subagent definitions (`DriverRequest.agents`); absent or false: a run with
   * `agents` is refused before launch (`FeatureUnsupportedError`).
   */
  readonly subagents?: boolean;
  /**
   * The driver applies permission rules (`DriverRequest.toolRules`, the run options `allowedTools`
   * and `disallowedTools`); absent or false: a run with either is refused before launch
   * (`FeatureUnsupportedError`).
   */
  readonly toolRules?: boolean;
  /**
   * The driver lets the agent's file tools use further directories
   * (`DriverRequest.additionalDirectories`); absent or false: a run with `additionalDirectories` is
   * refused before launch (`FeatureUnsupportedError`).
   */
  readonly additionalDirectories?: boolean;
  /**
   * The driver starts a turn in its CLI's plan mode (`DriverRequest.planMode`), whose exit is asked
   * as a `plan_review`; absent or false: a run with `planMode` is refused before launch
   * (`FeatureUnsupportedError`).
   */
  readonly planMode?: boolean;
  /**
   * Reasoning effort levels the driver carries to its model (`DriverRequest.effort`); absent or
   * empty: none, and a run with an `effort` it does not list is refused before launch
   * (`FeatureUnsupportedError`).
   */
  readonly effort?: readonly ReasoningEffort[];
  /**
   * Which budgets (`DriverRequest.budget`) the run can be held to beyond tool calls, which the SDK
   * counts for every driver: `turns` when the driver emits a `notice` of kind `model.response` for
   * every model response (and may stop at the limit natively); `costUsd` when it reports the run's
   * cost (and may stop at the limit natively). Absent: a run with that budget is refused before
   * launch (`FeatureUnsupportedError`).
   */
  readonly budgets?: { readonly turns?: boolean; readonly costUsd?: boolean };
  /**
   * What a host can do to a running turn (see `TurnControl`): `interrupt` stops it and keeps the
   * conversation and process for the next turn; `send` gives it another user message, and
   * `sendImages` one that carries images (as a prompt's); `setModel`
   * switches its model; `approvalMode`: the SDK can apply new approval modes to the rest of the
   * run, the CLI sending it every ask the new `permission` mode needs (the CLI asks the same
   * whatever the launch modes, or its `TurnControl.setApprovalMode` makes it ask). Absent or false:
   * the stream's matching method is refused (`FeatureUnsupportedError`).
   */
  readonly turnControl?: {
    readonly interrupt?: boolean;
    readonly send?: boolean;
    readonly sendImages?: boolean;
    readonly setModel?: boolean;
    readonly approvalMode?: boolean;
  };
  /**
   * The hook points (see `HookPoint`) at which the driver makes its CLI wait for the host's hook
   * (`DriverSink.hook`) and carries its answer: `beforeToolCall` can deny or edit the call,
   * `afterToolCall` and `promptSubmit` can add context for the model, `stop` can make the agent go
   * on, `sessionStart` and `subagentStart` can add context, `subagentStop` can make the subagent
   * go on; `sessionEnd`, `notification` and `preCompact` observe. At `afterToolCall`,
   * `promptSubmit` and `stop` when not listed the SDK only observes the run's events (after a
   * tool result, at the prompt, at the end of the turn); a hook at any other point not listed is
   * refused before launch (`FeatureUnsupportedError`, feature `hooks.<name>`). Absent: none.
   */
  readonly hooks?: readonly HookPoint[];
  /**
   * True when the driver hands its CLI a tool hook's matchers, one hook matcher per group
   * (`DriverRequest.hookMatchers`), so the CLI stops only for the calls a group is for and names
   * that group in its ask (`HookAsk.group`). Absent or false: the SDK filters the calls itself
   * before calling each group's hook.
   */
  readonly hookMatchers?: boolean;
  /**
   * Hook points, not in `hooks`, that the SDK refuses before launch (`FeatureUnsupportedError`,
   * feature `hooks.<name>`, e.g. `hooks.onStop`) instead of observing them: the SDK could only call
   * them after the work their verdict would steer, so a verdict would end a run whose work already
   * ran. Absent: none (`beforeToolCall` and the agent's life events, `sessionStart` to
   * `subagentStop`, are refused wherever `hooks` lacks them).
   */
  readonly refusedHooks?: readonly HookPoint[];
  /** Streaming detail the driver emits. */
  readonly streaming: {
    readonly textDeltas: boolean;
    readonly thinking: boolean;
    readonly toolCallArgs: boolean;
  };
}

/** A driver's identity and capabilities. Deterministic: the same object for every call. */
export interface DriverDescriptor {
  /** Stable type id, e.g. `"claude"`; used in error fields and fingerprints. */
  readonly type: string;
  /** Human name, e.g. `"Claude Code"`. */
  readonly displayName: string;
  /** What the driver has proved against the real binary; the SDK refuses requests outside it. */
  readonly capabilities: DriverCapabilities;
}
