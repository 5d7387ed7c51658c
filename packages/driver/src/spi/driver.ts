import type { ApprovalAsk, ApprovalDecision } from "./approval.js";
import type { DriverDescriptor } from "./descriptor.js";
import type { DriverEvent } from "./events.js";
import type { HookAnswer, HookAsk } from "./hooks.js";
import type { DriverInspection, InspectOptions } from "./inspect.js";
import type { DriverRequest, PrewarmRequest } from "./request.js";
import type { DriverResponse } from "./response.js";
import type { DriverListSessionsQuery, SessionPage, SessionSummary } from "./session-list.js";
import type { DriverSessionMessagesQuery, SessionMessagePage } from "./session-messages.js";
import type { DriverForkSessionQuery, DriverRenameSessionQuery, DriverSessionQuery, DriverTagSessionQuery } from "./session-info.js";
import type { SessionTransfer } from "./session-transfer.js";
import type { TurnControl } from "./turn-control.js";

/** How a driver reports progress and asks the host for decisions during {@link Driver.run}. */
export interface DriverSink {
  /**
   * Emits an event; never throws, never blocks. Only the {@link DriverEvent} types pass: the SDK
   * drops any other (its own lifecycle events included) and counts them in a `driver.contract` notice.
   */
  emit(event: DriverEvent): void;
  /**
   * Asks the host to decide. Always resolves: when the run ends or the host cannot answer, it
   * resolves with a `deny`, so the CLI is always answered.
   */
  requestApproval(ask: ApprovalAsk): Promise<ApprovalDecision>;
  /**
   * Calls the host's hook at one of the points of `DriverRequest.hooks` and resolves its answer,
   * which the driver carries to the CLI. Always resolves: when the run ends first, or the hook
   * fails (the run then ends with the hook's error), with a `deny` at `beforeToolCall` and an
   * empty answer elsewhere, so the CLI is always answered. Present when the request has `hooks`.
   */
  hook?(ask: HookAsk): Promise<HookAnswer>;
  /**
   * Whether a deny rule of the run (`policy.approvals.rules`, or one a host's answer remembered so
   * far) names a call of `toolName` with `input`, compared as an ask about that call would be. A
   * driver whose CLI would run such a call without asking (Claude Code's read tools) makes the CLI
   * ask about it instead, so the rule denies it before it runs. Never throws. Optional: a host
   * without it holds no rules.
   */
  ruleDenies?(toolName: string, input: unknown): boolean;
  /**
   * True while the host is doing work for this run that the CLI waits on: one of the SDK's host
   * tools (`defineTool`) is being called (its hooks, its approval, its handler), so the CLI's
   * silence meanwhile is not a stall (the driver kit's `StallWatchdog` does not count it). Never
   * throws. Optional: a host without it runs no work the CLI waits on.
   */
  hostBusy?(): boolean;
  /**
   * Offers the host the running turn's controls (see {@link TurnControl}), once the turn can take
   * them; returns the function that withdraws them, which the driver calls when the turn ends.
   * Optional: a host without it never controls a turn.
   */
  attachControl?(control: TurnControl): () => void;
  /**
   * For a driver that reads many lines at once: undefined while the host has room for more events
   * now; else a promise to await before emitting more, which resolves once the host took the
   * events waiting or, at the latest, when the event loop turns (a host that is not reading never
   * holds the driver up; its high-frequency events are dropped as before). Never rejects.
   * Optional: without it a driver yields one microtask turn between two lines
   * (`beforeNextLine` in the driver kit does either).
   */
  ready?(): Promise<void> | undefined;
  /**
   * What the turn produced before its signal stopped it, reported once by a driver about to reject
   * with the abort reason: the assistant text, the usage (token counts), cost and per-model usage
   * of the model calls that ran, their number (`numTurns`), the model, the transcript items so
   * far, the tool calls refused so far (`permissionDenials`) and how the run's policy was enforced
   * until then (`enforcement`). The host gives them to a verdict that still has a Result: a
   * suspended turn's, and a `RunError` the SDK's own stop gives (an approval denied with an
   * aborting fallback or timed out, a budget), whose Result the host completes with what the run's
   * events showed (the streamed text, the `model.response` notices, the approvals it refused).
   * Optional: a host without it keeps what the events showed only.
   */
  partial?(
    output: Partial<
      Pick<
        DriverResponse,
        "text" | "usage" | "costUsd" | "modelUsage" | "numTurns" | "model" | "provider" | "transcript" | "permissionDenials" | "enforcement"
      >
    >,
  ): void;
}

/**
 * A coding-agent CLI adapter (docs/design.md "Drivers"). Parsing the CLI protocol belongs to the
 * driver; spawning, framing and kill escalation come from `@adaptor/driver/process`.
 */
export interface Driver {
  /** Type, display name and the capabilities this driver has proved. */
  readonly descriptor: DriverDescriptor;
  /**
   * Checks the captured configuration without I/O; called before every launch.
   * @throws InvalidDriverConfigError
   */
  validateConfig(): void;
  /**
   * Runs one invocation. Resolves with a response for success and for classified business
   * failures (`response.failure`). Rejects with an ordinary error for infrastructure failures:
   * a missing executable (`DriverError` `NOT_FOUND`), a broken protocol, or `signal` aborting
   * (then with `signal.reason` in the cause chain), after the process is gone.
   */
  run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse>;
  /**
   * The configuration that decides whether a stored conversation can be continued by this driver
   * (part of a thread's compatibility fingerprint). JSON-like data only; omit secrets and values
   * that may change without breaking resume (API keys, env). Default: none. With
   * `portableSessions` the thread's session files travel with its checkpoint (see
   * {@link sessions}), so where this host keeps them (its CLI home) must not be part of it.
   */
  fingerprint?(context?: { readonly portableSessions?: boolean }): unknown;
  /**
   * The working directory a run without `request.cwd` launches the CLI in: the driver
   * configuration's `cwd`. Undefined: none configured, the CLI runs in the host process's
   * `process.cwd()`. A thread whose run and Agent give no `cwd` names this directory as its
   * workspace in its compatibility fingerprint. Optional: a driver without it is taken to have none.
   */
  readonly cwd?: string | undefined;
  /**
   * Exports and imports the CLI's session files, so a thread continues on any host (see
   * {@link SessionTransfer}). Optional: without it a thread resumes only where its CLI home is.
   */
  readonly sessions?: SessionTransfer;
  /**
   * Starts one CLI process ahead of time for a first turn launched from `request`'s inputs and
   * resolves `true` once it is ready to take a prompt (`false`: this configuration cannot be
   * pre-warmed, nothing was started). A later run of a fresh conversation (no `session`)
   * whose launch signature is the same takes it instead of spawning; a run with any other spawn
   * input never does. A driver whose CLI can host several conversations in one process may, after
   * a healthy run that left nothing of its own running, make that process ready again for another
   * such first turn instead of ending it (the response then has no `exit`). Unused processes end
   * after the driver's idle time and on {@link close}. Optional: a driver without it always spawns.
   *
   * @throws InvalidDriverConfigError, InvalidPolicyError, PolicyCapabilityUnsupportedError like
   * `run`; DriverError `NOT_FOUND` for a missing executable; a DriverError when the process ends
   * before it is ready; `signal.reason` when aborted (the process is then ended).
   */
  prewarm?(request: PrewarmRequest, signal: AbortSignal): Promise<boolean>;
  /**
   * Checks the host without a model call and without cost: the executable and its version against
   * the pinned one, whether credentials are present (never their value), the models the CLI can
   * list, MCP and skills support. Probes that fail are reported in `failed` with a typed reason,
   * never thrown. Optional: a driver without it cannot be inspected.
   * @throws only `signal.reason` when aborted (the probe processes are then ended).
   */
  inspect?(options?: InspectOptions): Promise<DriverInspection>;
  /**
   * One page of the CLI's own sessions in this host's CLI home (the home a run with `query.env`
   * would use), most recently updated first, without a model call. Opens only the session files a
   * page lists, and of each only what it needs (its head and tail, never a whole transcript), so
   * its memory does not grow with the size of the sessions; a driver that orders the session files
   * itself may keep a small record per file (Claude Code: its name, folder and modification time)
   * while it sorts them. A session file it cannot read is reported in
   * `skipped`, never thrown. Present only with the descriptor's `sessions.list`.
   * @throws FeatureUnsupportedError (feature `listSessions`) when this configuration cannot list
   * (e.g. an agent that does not advertise it); InvalidOptionError (field `cursor`) for a cursor
   * it did not give; a DriverError when the CLI's home or the CLI itself fails; `signal.reason`
   * when aborted (a process it started is ended first).
   */
  listSessions?(query: DriverListSessionsQuery, signal?: AbortSignal): Promise<SessionPage>;
  /**
   * One page of the messages of the CLI's session `query.sessionId` in this host's CLI home (the
   * home a run with `query.env` would use, as {@link listSessions}), oldest first, without a model
   * call: the main conversation only (not a subagent's), user prompts and assistant replies with
   * their tool calls and results (see `SessionMessage`). Reads only what the page needs, so its
   * memory does not grow with the size of the session's messages beyond a small record per entry.
   * Present only with the descriptor's `sessions.messages`.
   * @returns the page, or `undefined` when this home holds no session of that id (a wrong id, or
   * one of another home): the SDK refuses that with `ErrResumeRejected`, as an adoption of it.
   * @throws FeatureUnsupportedError (feature `getSessionMessages`) when this configuration cannot
   * read; InvalidOptionError (field `cursor`) for a cursor it did not give; a DriverError when the
   * CLI's home or the CLI itself fails; `signal.reason` when aborted (a process it started is ended first).
   */
  getSessionMessages?(query: DriverSessionMessagesQuery, signal?: AbortSignal): Promise<SessionMessagePage | undefined>;
  /**
   * The summary of the CLI's session `query.sessionId` in this host's CLI home (as
   * {@link listSessions}), the record a listing gives for it, read without listing the home and
   * without a model call. Present only with the descriptor's `sessions.info`.
   * @returns the summary, or `undefined` when this home holds no session of that id (the SDK
   * refuses that with `ErrResumeRejected`, as {@link getSessionMessages}).
   * @throws a DriverError when the CLI's home or the CLI itself fails; `signal.reason` when aborted.
   */
  getSessionInfo?(query: DriverSessionQuery, signal?: AbortSignal): Promise<SessionSummary | undefined>;
  /**
   * Gives the CLI's session `query.sessionId` the title `query.title` in the CLI's own form, so a
   * listing and the CLI's own session picker show it; safe while a CLI process writes the session
   * (nothing already recorded is rewritten). Present only with the descriptor's `sessions.rename`.
   * @returns `false`, having written nothing, when this home holds no session of that id.
   * @throws a DriverError when the CLI's home or the CLI itself fails; `signal.reason` when aborted.
   */
  renameSession?(query: DriverRenameSessionQuery, signal?: AbortSignal): Promise<boolean>;
  /**
   * Gives the CLI's session `query.sessionId` the tag `query.tag` (`null`: clears it) in the CLI's
   * own form, as {@link renameSession}. Present only with the descriptor's `sessions.tag`.
   * @returns `false`, having written nothing, when this home holds no session of that id.
   * @throws as {@link renameSession}.
   */
  tagSession?(query: DriverTagSessionQuery, signal?: AbortSignal): Promise<boolean>;
  /**
   * Copies the CLI's session `query.sessionId` into a new session of the CLI's own in this home,
   * without a model call: its conversation through the message `query.upToMessageId` (inclusive;
   * absent: all of it), titled `query.title` (absent: the original's title and `" (fork)"`), which
   * the CLI resumes by its new id. The original is not changed. Present only with the descriptor's
   * `sessions.forkSession`.
   * @returns the new session's id, or `undefined`, having written nothing, when this home holds no
   * session of that id.
   * @throws InvalidOptionError (subject `"forkSession arguments"`, field `upToMessageId`), having
   * written nothing, when the session holds no message of that id; FeatureUnsupportedError
   * (feature `forkSession`) when this configuration cannot fork (an agent that does not offer it);
   * a DriverError when the CLI's home or the CLI itself fails; `signal.reason` when aborted.
   */
  forkSession?(query: DriverForkSessionQuery, signal?: AbortSignal): Promise<string | undefined>;
  /**
   * Ends the CLI process parked between turns for the conversation `resumeId` (a checkpoint's
   * `resumeId`), if there is one: the SDK calls it when the thread it served was deleted, so
   * nothing of a deleted thread keeps running until idle eviction. A process serving a run is not
   * touched. Optional: a driver that parks no processes needs none. Never rejects.
   */
  releaseSession?(resumeId: string): Promise<void>;
  /** Releases pooled processes; idempotent. */
  close?(): Promise<void>;
}
