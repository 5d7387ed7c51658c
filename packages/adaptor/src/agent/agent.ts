import { AdaptorError, DriverError, ErrCode, InvalidOptionError, MAX_TIMER_MS, optionChecks } from "@adaptor/errors";
import { threadBusyError } from "../errors/thread-busy.js";
import { UnreadRawFiles } from "./unread-raw.js";
import {
  checkInspectOptions,
  checkListSessionsQuery,
  checkSessionMessagesQuery,
  checkSessionId,
  checkSessionTag,
  checkSessionTitle,
  checkForkSessionOptions,
  FeatureUnsupportedError,
  type Driver,
  type DriverInspection,
  type ForkSessionOptions,
  type ForkSessionResult,
  type InspectOptions,
  type ListSessionsQuery,
  type PrewarmRequest,
  type SessionMessagePage,
  type SessionMessagesQuery,
  type SessionPage,
  type SessionSummary,
} from "@adaptor/driver";
import { inspectDriver } from "./inspect-driver.js";
import { v7 as uuidv7 } from "uuid";
import { holdHostWhile } from "@adaptor/driver/kit";
import { ErrAgentClosed, ErrResumeRejected, ErrThreadStoreRequired } from "../errors/sentinels.js";
import { ThreadCatalogUnsupportedError } from "../errors/thread-catalog-unsupported-error.js";
import {
  checkListThreadsQuery,
  checkThreadKey,
  supportsThreadCatalog,
  type DeletedThread,
  type ListThreadsQuery,
  type ThreadCatalogStore,
  type ThreadPage,
  type ThreadStore,
} from "@adaptor/threadstore";
import { EventQueue, DEFAULT_EVENT_BUFFER } from "../events/event-queue.js";
import { executeRun } from "../run/execute-run.js";
import { Preparation } from "../prepare/preparation.js";
import { prepare } from "../prepare/prepare-run.js";
import type { Result } from "../result/result.js";
import { mergeRunOptions, type AgentOptions, type RunOptions } from "../options/run-options.js";
import { checkAgentOptions, checkPrewarmOptions, checkRunOptions, checkThreadOptions, type ThreadOptions } from "../options/check-input.js";
import { policyHeldRules } from "../approval/mode-switch.js";
import { TurnControls } from "../run/turn-controls.js";
import { driverStopMs } from "../run/driver-contract.js";
import { Stream } from "../run/stream.js";
import { assertPromptHasContent, splitPrompt, type PendingImage, type Prompt } from "../prompt/prompt.js";
import type { ThreadContext } from "../thread/thread-context.js";
import { Thread, type FileCheckpointScope, type ThreadHost } from "./thread.js";
import type { FileCheckpointOptions } from "../file-checkpoints/file-checkpoint-options.js";
import { checkpointedTurn, openRepo } from "../file-checkpoints/turn-files.js";
import { rewindThread } from "../file-checkpoints/rewind.js";
import { DEFAULT_SESSION_STATE_LIMIT_BYTES } from "../session-state/portable-sessions.js";
import { AgentTools } from "../tools/agent-tools.js";
import { pendingStore } from "../suspend/suspension.js";
import { checkApprovalList, checkDeletedThread, checkThreadPage, resolveWithin, storeCall } from "../thread/store-calls.js";
import { otelApi, otelRegistered } from "../telemetry/otel-api.js";

/** Default thread lease time-to-live, in ms. */
export const DEFAULT_LEASE_TTL_MS = 30_000;

/**
 * Runs prompts through a {@link Driver} (one verdict per run, docs/errors.md): `stream()` for
 * events, `run()` for the verdict alone. Close it (or `await using`) to reap every process.
 *
 * @example
 * const agent = new Agent(claude({ model: "claude-sonnet-4-5" }));
 * const result = await agent.run("Fix the failing test", { onApproval: (r) => r.approve() });
 * console.log(result.text);
 * await agent.close();
 */
export class Agent implements AsyncDisposable {
  /** The driver this agent runs prompts through. */
  readonly driver: Driver;
  readonly #options: AgentOptions;
  readonly #inflight = new Map<AbortController, Promise<unknown>>();
  readonly #owner: string;
  /** Thread key → version of the record this agent committed last (decides process reuse). */
  readonly #committed = new Map<string, string>();
  /** Host tools and their MCP server (started by the first run with tools, stopped by close()). */
  readonly #tools: AgentTools;
  /** Set by the first close(): from then on runs are refused. The latest close attempt. */
  #closing: Promise<void> | undefined;
  /** The latest close attempt failed: the next close() tries again. */
  #closeFailed = false;
  /** Raw output of this agent's Results still waiting unread in spill files (read into memory by close()). */
  readonly #unreadRaw = new UnreadRawFiles();

  /**
   * @throws InvalidOptionError (subject `"Agent options"`, matches `ErrInvalidOption`) naming the
   * field, before anything starts: `driver` missing (field `driver`); `options` not an object (also
   * `null`); an unknown key (with the closest known one suggested, or where a run-only key belongs);
   * a value of the wrong type; an empty `model`, `cwd` or `owner`; a string holding NUL or a lone
   * UTF-16 surrogate; an `eventBuffer` below 1; a `leaseTtlMs` outside (0, 2^31-1] ms; a
   * `timeoutMs` outside [0, 2^31-1] ms (Infinity: none).
   */
  constructor(driver: Driver, options: AgentOptions = {}) {
    if (typeof driver !== "object" || driver === null || typeof driver.run !== "function") {
      throw new InvalidOptionError({
        subject: "new Agent(driver)",
        field: "driver",
        reason: "must be a Driver (e.g. claude() or codex())",
      });
    }
    this.driver = driver;
    this.#options = checkAgentOptions(options);
    this.#owner = this.#options.owner ?? `agent-${uuidv7()}`;
    this.#tools = new AgentTools(this.#options.tools);
  }

  /**
   * Starts a run and returns its {@link Stream} at once; never throws. Anything wrong with the
   * prompt (one with no image and no text but whitespace is refused, field `prompt`) or the options
   * (an `InvalidOptionError` or `MalformedStringError` naming the field, see
   * `RunOptions`), and after `close()` began `ErrAgentClosed`, arrives through `result()` and a
   * final `run-finished` event; nothing starts.
   */
  stream(prompt: Prompt, options: RunOptions = {}): Stream {
    return this.#start(prompt, options, undefined, undefined, false);
  }

  /**
   * The thread under `key`: its runs continue the stored conversation, or start one
   * (`resumeOnly: true`: fail with `ErrThreadNotFound` instead of starting; `adoptSession`: continue
   * a conversation the CLI already has, see {@link ThreadOptions.adoptSession}).
   * @throws TypeError for an empty key (a programmer error); InvalidThreadKeyError
   * (`ErrInvalidThreadKey`) for a key that breaks the key rules: a lone UTF-16 surrogate, whitespace
   * only, a control character (C0 such as NUL or a line break, DEL, C1), a bidi override or isolate
   * (U+202A–U+202E, U+2066–U+2069), or more than 1024 bytes of UTF-8. Keys are compared exactly (no normalisation or case folding).
   * InvalidOptionError (subject `"thread options"`) for an unknown or mistyped option.
   */
  thread(key: string, options: ThreadOptions = {}): Thread {
    const { resumeOnly, adoptSession } = checkThreadOptions(options);
    if (adoptSession !== undefined) return new Thread(this.#threadHost, key, "adopt", adoptSession);
    return new Thread(this.#threadHost, key, resumeOnly ? "resume_only" : "continue_or_start");
  }

  /**
   * A fresh conversation under `key`. The previous record is archived only when the first run
   * produced a valid checkpoint; until then the old conversation stays resumable.
   * @throws TypeError for an empty key; InvalidThreadKeyError (`ErrInvalidThreadKey`) for a key
   * that breaks the key rules (see {@link Agent.thread}).
   */
  newThread(key: string): Thread {
    return new Thread(this.#threadHost, key, "start_new");
  }

  /**
   * One page of the threads in the Agent's thread store (keys with an active record, in ascending
   * order of their UTF-8 bytes), with each one's last update and size; pass the page's
   * `nextCursor` as `cursor` for the next page.
   * @param query.prefix - only keys starting with it (exact, no case folding); default every key.
   * @param query.limit - threads per page, an integer in [1, 1000]; default 100.
   * @param signal - ends the wait: rejects with its abort reason even while the store has not answered.
   * @throws ErrThreadStoreRequired without a store; ThreadCatalogUnsupportedError
   * (`ErrThreadCatalogUnsupported`) for a store without the thread-catalog capability; RangeError /
   * TypeError for a bad query (nothing asked); the store's errors; InvalidOptionError (subject
   * `"thread store listThreads() answer"`, `field` naming the first bad one, e.g. `threads[2].key`)
   * for a malformed page from a custom store.
   */
  async listThreads(query: ListThreadsQuery = {}, signal?: AbortSignal): Promise<ThreadPage> {
    const { prefix } = checkListThreadsQuery(query);
    return checkThreadPage(await storeCall("listThreads", signal, this.#catalog("listing threads").listThreads(query, signal)), prefix);
  }

  /**
   * One page of the CLI's own sessions in this host's CLI home, most recently updated first: the
   * conversations the CLI keeps whoever made them (the CLI by hand, an app on the Claude Agent SDK
   * or the Codex SDK, this SDK's own runs and threads), each with its `sessionId`, working directory,
   * title, first prompt and times where the CLI records them (see `SessionSummary`). A listed
   * `sessionId` continues as a thread with `agent.thread(key, { adoptSession: sessionId })`. The CLI
   * home is the one this Agent's runs use (the driver's config, then the Agent's `env`, e.g.
   * `CLAUDE_CONFIG_DIR`, `CODEX_HOME`); sessions of other homes are not listed. No model call is
   * made. Claude Code: its transcripts are read from their ends only (64 KiB each), no process is
   * started. Codex: one short-lived `codex app-server` answers `thread/list` and is ended.
   * A session file the driver cannot read is reported in the page's `skipped` and the listing goes
   * on. Pass the page's `nextCursor` as `cursor` for the next page.
   * @param query.cwd - only sessions made in exactly this absolute directory; default every one.
   * @param query.limit - sessions per page, an integer in [1, 1000]; default 100.
   * @param signal - aborts the listing (rejects with its reason; a process it started is ended).
   * `close()` aborts a listing in flight too.
   * @throws InvalidOptionError (subject `"listSessions query"`) naming the field, before anything
   * is read (a relative `cwd`, a `limit` out of range, an unknown key; a `cursor` the driver did not
   * give, when the driver reads it); InvalidOptionError (subject `"listSessions arguments"`, field
   * `signal`) for a `signal` that is not an `AbortSignal`; FeatureUnsupportedError (`ErrFeatureUnsupported`, feature
   * `listSessions`) for a driver without the capability (`sessions.list`); `ErrAgentClosed` after
   * close(); InvalidDriverConfigError; DriverError for a CLI that fails to answer (`NOT_FOUND` for a
   * missing executable); `signal`'s reason when aborted.
   */
  async listSessions(query: ListSessionsQuery = {}, signal?: AbortSignal): Promise<SessionPage> {
    const { cwd, limit, cursor } = checkListSessionsQuery(query);
    if (signal !== undefined) optionChecks.abortSignal()(signal, "signal", "listSessions arguments");
    if (this.#closing) throw new AdaptorError("agent is closed", { sentinel: ErrAgentClosed });
    signal?.throwIfAborted();
    const driver = this.driver;
    if (driver.descriptor.capabilities.sessions.list !== true || typeof driver.listSessions !== "function")
      throw new FeatureUnsupportedError(driver.descriptor.type, "listSessions", "it cannot list its CLI's sessions");
    const env = this.#options.env;
    return this.#sessionCall(driver, signal, (inner) =>
      driver.listSessions!(
        {
          limit,
          ...(cwd !== undefined ? { cwd } : {}),
          ...(cursor !== undefined ? { cursor } : {}),
          ...(env !== undefined ? { env } : {}),
        },
        inner,
      ),
    );
  }

  /**
   * One page of the messages of the CLI's own session `sessionId` in this host's CLI home, oldest
   * first: what was said in a conversation {@link listSessions} lists, to show it before adopting
   * it (`agent.thread(key, { adoptSession: sessionId })`). Each message is `user` (a prompt) or
   * `assistant` (a reply: its text, its tool calls and their results), the same shape for every
   * CLI (see `SessionMessage`); only the main conversation is read, not a subagent's. The CLI home
   * is the one this Agent's runs use, as for {@link listSessions}. No model call is made.
   * Claude Code: the transcript `<config dir>/projects/<folder>/<sessionId>.jsonl` is indexed
   * line by line (a small record per entry, never the whole file in memory) and only the page's
   * entries are read again; no process is started. Codex: one short-lived `codex app-server`
   * answers `thread/turns/list` and is ended. ACP agents: a short-lived agent process replays the
   * session on `session/load` in this Agent's `cwd` (else the driver's) (the whole history each
   * time; only the page is kept) and is ended; an agent that replays no message for the id is
   * asked its `session/list` when it offers one (not listed: `ErrResumeRejected`), else the empty
   * page says `unconfirmed: true` (such an agent may load a made-up id as well).
   * Pass the page's `nextCursor` as `cursor` for the next page.
   * @param sessionId - the CLI's id of the session (`SessionSummary.sessionId`).
   * @param query.limit - messages per page, an integer in [1, 1000]; default 100.
   * @param signal - aborts the read (rejects with its reason; a process it started is ended).
   * `close()` aborts a read in flight too.
   * @throws InvalidOptionError (subject `"getSessionMessages arguments"`, field `sessionId` or
   * `signal`; subject `"getSessionMessages query"` naming the field: a `limit` out of range, an
   * unknown key, a `cursor` the driver did not give) before anything is read;
   * FeatureUnsupportedError (`ErrFeatureUnsupported`, feature `getSessionMessages`) for a driver
   * without the capability (`sessions.messages`: CodeBuddy, Cursor, an ACP agent with
   * `loadSession: false` such as Gemini CLI's preset), before anything starts, or an ACP agent
   * whose `initialize` answer offers no `loadSession`, after `initialize`; `ErrResumeRejected` when this host's CLI home holds no session `sessionId` (a wrong id,
   * another config dir or home), as an adoption of it would be; `ErrAgentClosed` after close();
   * InvalidDriverConfigError; DriverError for a CLI that fails to answer (`NOT_FOUND` for a
   * missing executable; `DRIVER` for an ACP agent's error answer to `session/load` other than
   * resource-not-found, its cause the agent's error); `signal`'s reason when aborted.
   */
  async getSessionMessages(sessionId: string, query: SessionMessagesQuery = {}, signal?: AbortSignal): Promise<SessionMessagePage> {
    const { limit, cursor } = checkSessionMessagesQuery(sessionId, query);
    if (signal !== undefined) optionChecks.abortSignal()(signal, "signal", "getSessionMessages arguments");
    if (this.#closing) throw new AdaptorError("agent is closed", { sentinel: ErrAgentClosed });
    signal?.throwIfAborted();
    const driver = this.driver;
    if (driver.descriptor.capabilities.sessions.messages !== true || typeof driver.getSessionMessages !== "function")
      throw new FeatureUnsupportedError(driver.descriptor.type, "getSessionMessages", "it cannot read its CLI's sessions");
    const { env, cwd } = this.#options;
    const page = await this.#sessionCall(driver, signal, (inner) =>
      driver.getSessionMessages!(
        {
          sessionId,
          limit,
          ...(cursor !== undefined ? { cursor } : {}),
          ...(env !== undefined ? { env } : {}),
          ...(cwd !== undefined ? { cwd } : {}),
        },
        inner,
      ),
    );
    if (page === undefined)
      throw new AdaptorError(
        `cannot read session ${sessionId}: this host's ${driver.descriptor.type} home has no such session (check the id and the CLI's config dir or home)`,
        { sentinel: ErrResumeRejected },
      );
    return page;
  }

  /**
   * The summary of the CLI's own session `sessionId` in this host's CLI home: the same record
   * {@link listSessions} gives for it (`SessionSummary`: title, first prompt, working directory,
   * times, tag), read without listing the home. The CLI home is the one this Agent's runs use, as
   * for {@link listSessions}. No model call is made. Claude Code: that one transcript
   * `<config dir>/projects/<folder>/<sessionId>.jsonl` is read, 64 KiB from each end; no process is
   * started. Codex: one short-lived `codex app-server` answers `thread/read` and is ended. ACP
   * agents: a short-lived agent process answers `session/list` page after page until one lists the
   * session (at most 100 pages), for an agent whose `initialize` answer offers it. An
   * unknown id is refused with `ErrResumeRejected`, as {@link getSessionMessages} refuses it (the
   * Claude Agent SDK's `getSessionInfo` resolves `undefined` instead).
   * @param sessionId - the CLI's id of the session (`SessionSummary.sessionId`).
   * @param signal - aborts the read (rejects with its reason; a process it started is ended).
   * `close()` aborts a read in flight too.
   * @throws InvalidOptionError (subject `"getSessionInfo arguments"`, field `sessionId` or
   * `signal`) before anything is read: an id that is not a non-empty string, holds NUL, `/` or `\`,
   * or is `.` or `..`; FeatureUnsupportedError (`ErrFeatureUnsupported`, feature
   * `getSessionInfo`) for a driver without the capability (`sessions.info`: CodeBuddy, Cursor),
   * before anything starts, or an ACP agent whose `initialize` answer offers no `session/list`,
   * after `initialize`; `ErrResumeRejected` when this host's CLI home holds no session `sessionId`;
   * `ErrAgentClosed` after close(); InvalidDriverConfigError; DriverError for a CLI that fails to
   * answer (`NOT_FOUND` for a missing executable) or a transcript without a complete entry
   * (`INVALID`); `signal`'s reason when aborted.
   */
  async getSessionInfo(sessionId: string, signal?: AbortSignal): Promise<SessionSummary> {
    const id = checkSessionId("getSessionInfo", sessionId);
    const driver = this.#sessionDriver("getSessionInfo", "info", "it cannot read its CLI's sessions", signal);
    const env = this.#options.env;
    const info = await this.#sessionCall(driver, signal, (inner) =>
      driver.getSessionInfo!({ sessionId: id, ...(env !== undefined ? { env } : {}) }, inner),
    );
    if (info === undefined) throw this.#unknownSession("read", id);
    return info;
  }

  /**
   * Gives the CLI's own session `sessionId` a title, in the CLI's own form, so {@link listSessions},
   * {@link getSessionInfo} and the CLI's own session picker show it (the peer SDKs' `renameSession`,
   * Codex's thread name). Claude Code: a `custom-title` entry appended to the session's transcript,
   * exactly as `/rename` and the Claude Agent SDK's `renameSession` write it; no process is started.
   * Codex: `thread/name/set` on one short-lived `codex app-server`. Safe while the session is being
   * run (a thread's turn, the CLI by hand): nothing already recorded is rewritten, the entry is
   * appended whole. No model call is made.
   * @param sessionId - the CLI's id of the session (`SessionSummary.sessionId`).
   * @param title - the new title; trimmed, then non-empty, at most 500 characters, no control
   * characters or line breaks.
   * @param signal - aborts the call (rejects with its reason; a process it started is ended).
   * @throws InvalidOptionError (subject `"renameSession arguments"`, field `sessionId`, `title` or
   * `signal`) before anything is read or written (an id as {@link getSessionInfo} refuses it);
   * FeatureUnsupportedError (`ErrFeatureUnsupported`, feature `renameSession`) for a driver without
   * the capability (`sessions.rename`: ACP agents, CodeBuddy, Cursor); `ErrResumeRejected`, nothing
   * written, when this host's CLI home holds no session `sessionId`; `ErrAgentClosed` after
   * close(); InvalidDriverConfigError; DriverError for a CLI that fails to answer, or (Claude Code)
   * `INVALID` for a hard link in place of the transcript, which is not written (a symbolic link or
   * FIFO there is no transcript: `ErrResumeRejected`);
   * `signal`'s reason when aborted.
   */
  async renameSession(sessionId: string, title: string, signal?: AbortSignal): Promise<void> {
    const id = checkSessionId("renameSession", sessionId);
    const checked = checkSessionTitle(title);
    const driver = this.#sessionDriver("renameSession", "rename", "its CLI has no session title it can set", signal);
    const env = this.#options.env;
    const found = await this.#sessionCall(driver, signal, (inner) =>
      driver.renameSession!({ sessionId: id, title: checked, ...(env !== undefined ? { env } : {}) }, inner),
    );
    if (!found) throw this.#unknownSession("rename", id);
  }

  /**
   * Gives the CLI's own session `sessionId` a tag (`null`: clears it), in the CLI's own form, so
   * {@link listSessions} and {@link getSessionInfo} give it as `tag` (the Claude Agent SDK's
   * `tagSession`). Claude Code: a `tag` entry appended to the session's transcript exactly as the
   * Claude Agent SDK writes it (`""` for a cleared tag), safe while the session is being run, as
   * {@link renameSession}. No process is started and no model call is made.
   * @param sessionId - the CLI's id of the session (`SessionSummary.sessionId`).
   * @param tag - the new tag, trimmed, then non-empty, at most 200 characters, no control
   * characters or line breaks; `null` clears the tag.
   * @param signal - aborts the call (rejects with its reason).
   * @throws InvalidOptionError (subject `"tagSession arguments"`, field `sessionId`, `tag` or
   * `signal`) before anything is written; FeatureUnsupportedError (`ErrFeatureUnsupported`, feature
   * `tagSession`) for a driver without the capability (`sessions.tag`: Codex, whose threads have no
   * tag, ACP agents, CodeBuddy, Cursor); otherwise as {@link renameSession}.
   */
  async tagSession(sessionId: string, tag: string | null, signal?: AbortSignal): Promise<void> {
    const id = checkSessionId("tagSession", sessionId);
    const checked = checkSessionTag(tag);
    const driver = this.#sessionDriver("tagSession", "tag", "its CLI has no session tag", signal);
    const env = this.#options.env;
    const found = await this.#sessionCall(driver, signal, (inner) =>
      driver.tagSession!({ sessionId: id, tag: checked, ...(env !== undefined ? { env } : {}) }, inner),
    );
    if (!found) throw this.#unknownSession("tag", id);
  }

  /**
   * Copies the CLI's own session `sessionId` into a new session of the CLI's own in this host's
   * CLI home (the Claude Agent SDK's `forkSession`): the conversation through the message
   * `options.upToMessageId` (inclusive), under a title, without a run or a model call. The original
   * is not changed; the fork is continued like any session of the CLI
   * (`agent.thread(key, { adoptSession: sessionId })`, the CLI's own `--resume`) and its history
   * is the conversation copied. (For a thread of this Agent, `thread.fork(newKey, { at })` forks at a
   * turn instead.) The CLI home is the one this Agent's runs use, as for {@link listSessions}.
   * Claude Code: the transcript is copied into `<the same project folder>/<new id>.jsonl`, created
   * anew (never over a file, a link or a FIFO there), every entry with a new `uuid` and its
   * `parentUuid` chain kept on the new ones; a `custom-title` entry ends it; file-history snapshots
   * (the CLI's undo of file edits) are not copied; no process is started. Codex: `thread/fork`
   * (through the turn that ends with `upToMessageId`: codex forks after whole turns), then
   * `thread/name/set` with the title, on one short-lived `codex app-server`.
   * @param sessionId - the CLI's id of the session (`SessionSummary.sessionId`).
   * @param options.upToMessageId - the id of the message the fork ends with (`SessionMessage.id`
   * of {@link getSessionMessages}): that message whole (a reply's blocks and the results of its
   * tool calls) is the fork's last; absent: the whole conversation. Claude Code also takes the uuid
   * of any entry of the conversation (the Claude Agent SDK's message uuids) and ends there.
   * @param options.title - the fork's title, as {@link renameSession} takes it; absent: the
   * original's title ({@link getSessionInfo}'s, else `"Forked session"`) and `" (fork)"`.
   * @param options.signal - aborts the call (rejects with its reason), before the fork is written
   * (Codex: before `thread/fork` is sent; an abort after it does not stop the call, which answers
   * the fork's id rather than hide a fork codex made).
   * `close()` aborts a call in flight too.
   * @returns `{ sessionId }`, the fork's id.
   * @throws InvalidOptionError (subject `"forkSession arguments"`, field `sessionId`, `options`,
   * `upToMessageId`, `title`, `signal`, or an unknown key) before anything is read or written (an
   * id as {@link getSessionInfo} refuses it; an `upToMessageId` that is not a non-empty string of
   * at most 200 characters without control characters); FeatureUnsupportedError
   * (`ErrFeatureUnsupported`, feature `forkSession`) for a driver without the capability
   * (`sessions.forkSession`: ACP agents, whose `session/fork` an agent need not keep once its
   * process ends, CodeBuddy, Cursor), before anything starts; `ErrResumeRejected`, nothing
   * written, when this host's CLI home holds no session `sessionId`; InvalidOptionError (field
   * `upToMessageId`), nothing written, when the session holds no message of that id (Codex: or it
   * is not the last message of its turn);
   * `ErrAgentClosed` after close(); InvalidDriverConfigError; DriverError, nothing written, for a
   * CLI home that fails, or (Claude Code) `INVALID` for a hard link in place of the transcript, a
   * link in place of a folder of the home, or a transcript without a message, and
   * `RESOURCE_EXHAUSTED` for a transcript over 1 GiB; `options.signal`'s reason when aborted.
   */
  async forkSession(sessionId: string, options: ForkSessionOptions = {}): Promise<ForkSessionResult> {
    const id = checkSessionId("forkSession", sessionId);
    const { upToMessageId, title, signal } = checkForkSessionOptions(options);
    const driver = this.#sessionDriver(
      "forkSession",
      "forkSession",
      "it cannot fork its CLI's sessions",
      signal as AbortSignal | undefined,
    );
    const env = this.#options.env;
    const forked = await this.#sessionCall(driver, signal as AbortSignal | undefined, (inner) =>
      driver.forkSession!(
        {
          sessionId: id,
          ...(upToMessageId !== undefined ? { upToMessageId } : {}),
          ...(title !== undefined ? { title } : {}),
          ...(env !== undefined ? { env } : {}),
        },
        inner,
      ),
    );
    if (forked === undefined) throw this.#unknownSession("fork", id);
    return { sessionId: forked };
  }

  /**
   * The driver, for a call about one of the CLI's sessions, once `signal` is checked, the Agent is
   * open and the driver has the capability `capability` and the method `method`.
   */
  #sessionDriver(
    method: "getSessionInfo" | "renameSession" | "tagSession" | "forkSession",
    capability: "info" | "rename" | "tag" | "forkSession",
    why: string,
    signal: AbortSignal | undefined,
  ): Driver {
    if (signal !== undefined) optionChecks.abortSignal()(signal, "signal", `${method} arguments`);
    if (this.#closing) throw new AdaptorError("agent is closed", { sentinel: ErrAgentClosed });
    signal?.throwIfAborted();
    const driver = this.driver;
    if (driver.descriptor.capabilities.sessions[capability] !== true || typeof driver[method] !== "function")
      throw new FeatureUnsupportedError(driver.descriptor.type, method, why);
    return driver;
  }

  /** `ErrResumeRejected` for a session id this host's CLI home does not hold. */
  #unknownSession(verb: string, sessionId: string): AdaptorError {
    return new AdaptorError(
      `cannot ${verb} session ${sessionId}: this host's ${this.driver.descriptor.type} home has no such session (check the id and the CLI's config dir or home)`,
      { sentinel: ErrResumeRejected },
    );
  }

  /**
   * Runs a driver call about the CLI's sessions (a listing, a read) under its own signal, linked to
   * `signal`; close() cancels it like a run, and waits for it.
   */
  async #sessionCall<T>(driver: Driver, signal: AbortSignal | undefined, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const release = linkSignals(controller, driver.descriptor.type, { ...(signal ? { signal } : {}) });
    const running = Promise.resolve().then(() => call(controller.signal));
    this.#inflight.set(
      controller,
      running.catch(() => undefined),
    );
    try {
      return await running;
    } finally {
      release();
      this.#inflight.delete(controller);
    }
  }

  /**
   * Deletes the thread under `key` from the Agent's thread store: its current and archived
   * records, their session state and its stored approvals, in one atomic step. The CLI process
   * parked for the thread's conversation is ended (`Driver.releaseSession`); the next turn on `key`
   * starts a new conversation.
   * What the CLI keeps in this host's own home (its transcript files) is not touched.
   * @returns how many records and stored approvals were removed (`{ records: 0, approvals: 0 }` for an unknown key).
   * @param signal - ends the wait: rejects with its abort reason even while the store has not
   * answered (a delete already sent may still complete: list or resolve the key to know).
   * @throws `ErrThreadBusy` while a turn holds the key's lease (nothing deleted); InvalidThreadKeyError
   * for a malformed key; ErrThreadStoreRequired / ThreadCatalogUnsupportedError as {@link listThreads};
   * InvalidOptionError (subject `"thread store resolve() answer"`) for a malformed record (nothing
   * deleted), or (subject `"thread store deleteThread() answer"`) for a malformed count: the store
   * answered, so the delete may have been done, and the parked CLI process is ended all the same.
   */
  async deleteThread(key: string, signal?: AbortSignal): Promise<DeletedThread> {
    checkThreadKey(key);
    const store = this.#catalog("deleting a thread");
    try {
      const record = await resolveWithin(store, key, signal);
      const deleted = await storeCall("deleteThread", signal, store.deleteThread(key, signal));
      if (record) await this.driver.releaseSession?.(record.checkpoint.resumeId);
      return checkDeletedThread(deleted);
    } catch (error) {
      throw threadBusyError(key, error) ?? error;
    } finally {
      this.#committed.delete(key);
    }
  }

  /** The thread store, when it has the thread-catalog capability. */
  #catalog(what: string): ThreadStore & ThreadCatalogStore {
    const store = this.#options.threadStore;
    if (!store) throw new AdaptorError(`${what} needs a threadStore`, { sentinel: ErrThreadStoreRequired });
    if (!supportsThreadCatalog(store)) throw new ThreadCatalogUnsupportedError();
    return store;
  }

  readonly #threadHost: ThreadHost = {
    streamThread: (key, mode, from, prompt, options, eventsDrained, resume, forkAt) => {
      const store = this.#options.threadStore;
      if (!store) {
        const missing = new AdaptorError("thread runs need a threadStore", { sentinel: ErrThreadStoreRequired });
        return this.#start(prompt, options, missing, key, eventsDrained);
      }
      const context: ThreadContext = {
        store,
        key,
        mode,
        ...(from !== undefined && mode === "fork" ? { parentKey: from } : {}),
        ...(forkAt !== undefined && mode === "fork" ? { forkAt } : {}),
        ...(from !== undefined && mode === "adopt" ? { adoptSession: from } : {}),
        identity: this.#options.identity ?? "",
        owner: this.#owner,
        leaseTtlMs: this.#options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
        workspace: this.#options.workspace,
        sessionStateLimitBytes: this.#options.sessionStateLimitBytes ?? DEFAULT_SESSION_STATE_LIMIT_BYTES,
        sessionPortability: this.#options.sessionPortability ?? "best_effort",
        lastCommitted: this.#committed.get(key),
        onCommitted: (version) => this.#committed.set(key, version),
        ...(resume ? { resume } : {}),
      };
      return this.#start(prompt, options, context, key, eventsDrained);
    },
    checkpoint: async (key, signal) => {
      const store = this.#options.threadStore;
      if (!store) throw new AdaptorError("thread checkpoints need a threadStore", { sentinel: ErrThreadStoreRequired });
      return resolveWithin(store, key, signal);
    },
    deleteThread: (key, signal) => this.deleteThread(key, signal),
    history: async (key, scope) => {
      const repo = await openRepo(scope.cwd ?? this.#options.cwd, this.#fileCheckpoints(scope), scope.signal);
      return (await repo.history(key, scope.signal)).map(checkpointedTurn);
    },
    rewind: async (key, runId, scope) => {
      const store = this.#options.threadStore;
      if (!store) throw new AdaptorError("rewinding a thread needs a threadStore", { sentinel: ErrThreadStoreRequired });
      return rewindThread({
        descriptor: this.driver.descriptor,
        store,
        key,
        owner: this.#owner,
        leaseTtlMs: this.#options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
        cwd: scope.cwd ?? this.#options.cwd,
        options: this.#fileCheckpoints(scope),
        runId,
        signal: scope.signal,
      });
    },
    pendingApprovals: async (key, signal) => {
      const store = this.#options.threadStore;
      if (!store) throw new AdaptorError("pending approvals need a threadStore", { sentinel: ErrThreadStoreRequired });
      return checkApprovalList(await storeCall("listPendingApprovals", signal, pendingStore(store).listPendingApprovals(key, signal)), key);
    },
  };

  /** The file checkpoint settings of a history or rewind call: the call's, the Agent's, else the defaults. */
  #fileCheckpoints(scope: FileCheckpointScope): true | FileCheckpointOptions {
    const agent = this.#options.checkpointFiles;
    return scope.checkpointFiles ?? (agent && agent !== true ? agent : true);
  }

  #start(
    prompt: Prompt,
    options: RunOptions,
    thread: ThreadContext | AdaptorError | undefined,
    threadKey: string | undefined,
    eventsDrained: boolean,
  ): Stream {
    const runId = uuidv7();
    // The host's active span (if any) becomes the run's parent. With no tracer given and nothing
    // registered with OpenTelemetry every span would be a no-op: the run has no telemetry then.
    const tracing = this.#options.telemetry?.tracer !== undefined || otelRegistered();
    const parentContext = tracing ? otelApi().context.active() : undefined;
    const controller = new AbortController();
    // An interrupt the turn does not honour within the driver's stop bound ends the run like a cancel.
    const controls = new TurnControls(this.driver.descriptor, { afterMs: driverStopMs(this.driver), controller });
    const queue = new EventQueue(
      { runId, ...(threadKey !== undefined ? { threadKey, turnId: uuidv7() } : {}) },
      this.#options.eventBuffer ?? DEFAULT_EVENT_BUFFER,
      // A consumer that lags this far behind would hold the host's memory without bound.
      (limit) =>
        controller.abort(
          new DriverError({
            op: "events",
            device: this.driver.descriptor.type,
            code: ErrCode.ResourceExhausted,
            cause: `${limit} events wait for the stream's consumer (the event buffer's limit)`,
          }),
        ),
    );
    let refusal: unknown = this.#closing
      ? new AdaptorError("agent is closed", { sentinel: ErrAgentClosed })
      : thread instanceof AdaptorError
        ? thread
        : undefined;
    let merged: RunOptions = {};
    let text = "";
    let images: readonly PendingImage[] = [];
    let release = (): void => undefined;
    if (refusal === undefined) {
      // Nothing below may throw out of stream(): a refusal becomes the verdict.
      try {
        const call = checkRunOptions(options);
        ({ text, images } = splitPrompt(prompt));
        // A resumed suspended turn carries no prompt of its own: it runs its stored one.
        if (!(thread && !(thread instanceof AdaptorError) && thread.resume)) assertPromptHasContent({ text, images });
        merged = mergeRunOptions(this.#options, call);
        // Until the run's approval broker holds them, a mode switch is checked against the policy's rules.
        const rules = policyHeldRules(merged.policy?.approvals?.rules);
        controls.holdRules(() => rules);
        release = linkSignals(controller, this.driver.descriptor.type, merged);
      } catch (error) {
        refusal = error;
      }
    }
    if (refusal !== undefined) {
      const message = refusal instanceof Error ? refusal.message : String(refusal);
      queue.push({ type: "run-finished", ok: false, reason: "error", message });
      queue.close();
      controls.end();
      return new Stream(runId, queue, controller, Promise.reject(refusal), controls);
    }
    // A pending run holds the host even where nothing else does (a process being ended, an unref'd timer awaited).
    const result = holdHostWhile(
      Promise.resolve()
        .then(() =>
          executeRun({
            runId,
            driver: this.driver,
            prompt: text,
            ...(images.length > 0 ? { images } : {}),
            options: merged,
            queue,
            controller,
            controls,
            eventsDrained,
            tools: this.#tools.binding(runId, queue, thread && !(thread instanceof AdaptorError) ? thread.key : undefined),
            ...(parentContext
              ? { telemetry: { parent: parentContext, ...(this.#options.telemetry ? { options: this.#options.telemetry } : {}) } }
              : {}),
            // One lease owner per run: two turns on one key in this agent exclude each other too.
            ...(thread && !(thread instanceof AdaptorError) ? { thread: { ...thread, owner: `${thread.owner}/${runId}` } } : {}),
          }),
        )
        .finally(() => {
          release();
          this.#inflight.delete(controller);
        }),
    );
    result.then(
      (value) => this.#unreadRaw.track(value),
      (error: unknown) => this.#unreadRaw.track(error),
    );
    this.#inflight.set(
      controller,
      result.catch(() => undefined),
    );
    return new Stream(runId, queue, controller, result, controls);
  }

  /**
   * `stream(prompt, options)` drained: resolves the `Result` or rejects with the verdict. Nobody
   * reads the events, so an approval in `ask` mode can only be answered by `onApproval`: without
   * one, the first such approval ends the run at once with a `RunError` `approval_denied` saying
   * what to do (unless `policy.approvals.onTimeout` is `continue`: then it is denied and the run goes on).
   */
  async run(prompt: Prompt, options: RunOptions = {}): Promise<Result> {
    const stream = this.#start(prompt, options ?? {}, undefined, undefined, true);
    for await (const _event of stream) {
      // Drained so events never pile up; the verdict comes from result().
    }
    return stream.result();
  }

  /**
   * Checks the host for this agent's driver without a model call and without cost: the CLI's
   * executable and version against the pinned one, whether credentials are present (never their
   * value), the models it can list, MCP and skills support, and every failed check with a typed
   * reason (`DriverInspection.failed`). A driver without `inspect` yields an inspection saying so.
   * @param options.signal - aborts the probes.
   * @throws InvalidOptionError (subject `"inspect options"`) naming the field: options that are
   * not an object, an unknown key (with the closest known one suggested), a `signal` that is not
   * an `AbortSignal`; `ErrAgentClosed` after close(); `options.signal`'s reason when aborted.
   */
  async inspect(options: InspectOptions = {}): Promise<DriverInspection> {
    const checked = checkInspectOptions(options);
    if (this.#closing) throw new AdaptorError("agent is closed", { sentinel: ErrAgentClosed });
    return inspectDriver(this.driver, checked);
  }

  /**
   * Starts CLI processes ahead of time, so that the first turn of a later run skips the CLI's
   * start-up (like the Claude Agent SDK's `startup()`). `options` are the run options of the runs
   * to serve, merged over the Agent's defaults as a run's are; a run (or a thread's first turn)
   * whose resulting spawn inputs are the same (driver config, cwd, env, model, policy, MCP servers,
   * skills, output schema, the hook points its agent waits for) takes a waiting process instead of spawning, any other run spawns as
   * usual. Processes nobody took end after the driver's idle time and on {@link close}. A codex
   * app-server process goes back to waiting, with a new thread, after a healthy run that left
   * nothing running, so one pre-warmed process serves first turns one after another.
   *
   * @param options.count - processes to start, an integer >= 1; default 1.
   * @returns how many processes were started: 0 when the driver cannot pre-warm (or not in this
   * configuration, e.g. codex `exec`), or when the Agent has host tools (the host-tool token is in
   * the CLI's MCP config, fixed at spawn, and belongs to one run or one thread, which is not known
   * yet when pre-warming).
   * @throws InvalidOptionError (subject `"prewarm options"`) for a `count` that is not a positive
   * integer or a refused run option (as a run's); `ErrAgentClosed` after close(); the pre-invocation error a
   * run with these options would reject with (invalid config, policy, schema, MCP, skills);
   * DriverError `NOT_FOUND` for a missing executable; `options.signal`'s reason when aborted.
   */
  async prewarm(options: RunOptions & { readonly count?: number } = {}): Promise<number> {
    const { count = 1, ...runOptions } = checkPrewarmOptions(options);
    if (this.#closing) throw new AdaptorError("agent is closed", { sentinel: ErrAgentClosed });
    const driver = this.driver;
    if (typeof driver.prewarm !== "function" || this.#options.tools?.length) return 0;
    const controller = new AbortController();
    const release = linkSignals(controller, driver.descriptor.type, mergeRunOptions(this.#options, runOptions));
    const closing = Promise.resolve().then(async (): Promise<number> => {
      const merged = mergeRunOptions(this.#options, runOptions);
      const prep = await prepare(new Preparation({ runId: uuidv7(), driver, options: merged, signal: controller.signal, prompt: "" }));
      try {
        const {
          model,
          cwd,
          env,
          outputSchema,
          policy,
          mcpServers,
          skills,
          systemPrompt,
          agents,
          hooks,
          hookMatchers,
          toolRules,
          additionalDirectories,
          effort,
        } = prep.request;
        const request: PrewarmRequest = {
          ...(model !== undefined ? { model } : {}),
          ...(cwd !== undefined ? { cwd } : {}),
          ...(env !== undefined ? { env } : {}),
          ...(outputSchema !== undefined ? { outputSchema } : {}),
          ...(policy !== undefined ? { policy } : {}),
          ...(mcpServers !== undefined ? { mcpServers } : {}),
          ...(skills !== undefined ? { skills } : {}),
          ...(systemPrompt !== undefined ? { systemPrompt } : {}),
          ...(agents !== undefined ? { agents } : {}),
          ...(hooks !== undefined ? { hooks } : {}),
          ...(hookMatchers !== undefined ? { hookMatchers } : {}),
          ...(toolRules !== undefined ? { toolRules } : {}),
          ...(additionalDirectories !== undefined ? { additionalDirectories } : {}),
          ...(effort !== undefined ? { effort } : {}),
        };
        const started = await Promise.all(Array.from({ length: count }, () => driver.prewarm!(request, controller.signal)));
        return started.filter(Boolean).length;
      } finally {
        await prep.cleanup();
      }
    });
    // close() cancels a pre-warm in flight like a run, and waits for it.
    this.#inflight.set(
      controller,
      closing.catch(() => undefined),
    );
    try {
      return await closing;
    } finally {
      release();
      this.#inflight.delete(controller);
    }
  }

  /**
   * Closes the agent: new runs reject with `ErrAgentClosed`, runs in flight are cancelled (their
   * verdict carries `ErrAgentClosed`) and their processes reaped, the raw output of this agent's
   * Results that was never read and still waits in a temporary file is read into memory (the file
   * closed; `result.raw()` gives the same text afterwards), then the host-tool server and the
   * driver's pool are closed. Idempotent: calls share one promise while it is pending or once it
   * resolved. When it rejects (the driver's `close()` failed), the agent stays closed to runs and
   * the next call tries again (the driver's `close()` is called again).
   * @throws what the driver's `close()` threw.
   */
  close(): Promise<void> {
    if (this.#closing && !this.#closeFailed) return this.#closing;
    this.#closeFailed = false;
    const attempt = (async () => {
      const reason = new AdaptorError("agent closed during the run", { sentinel: ErrAgentClosed });
      for (const controller of this.#inflight.keys()) controller.abort(reason);
      await Promise.all(this.#inflight.values());
      // The Results the host kept unread give their spill files back, their text read into memory.
      this.#unreadRaw.load();
      await this.#tools.close();
      await this.driver.close?.();
    })();
    // Ending unref'd (parked, pre-warmed) processes holds the host until they were reaped.
    void holdHostWhile(attempt.catch(() => undefined));
    this.#closing = attempt;
    attempt.catch(() => {
      if (this.#closing === attempt) this.#closeFailed = true;
    });
    return attempt;
  }

  /** Same as {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Wires the caller's signal and the timeout into the run's controller; returns the unlink function. */
function linkSignals(controller: AbortController, device: string, options: RunOptions): () => void {
  const cleanups: (() => void)[] = [];
  const { signal, timeoutMs } = options;
  if (signal) {
    if (signal.aborted) controller.abort(signal.reason);
    else {
      const onAbort = (): void => controller.abort(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      cleanups.push(() => signal.removeEventListener("abort", onAbort));
    }
  }
  // Infinity: no deadline (anything else beyond the timer range was refused with the options).
  if (typeof timeoutMs === "number" && timeoutMs >= 0 && timeoutMs <= MAX_TIMER_MS) {
    const timer = setTimeout(() => {
      controller.abort(new DriverError({ op: "run", device, code: ErrCode.Timeout, cause: `exceeded timeoutMs=${timeoutMs}` }));
    }, timeoutMs);
    timer.unref?.();
    cleanups.push(() => clearTimeout(timer));
  }
  return () => cleanups.forEach((cleanup) => cleanup());
}
