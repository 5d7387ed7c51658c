import type {
  Driver,
  DriverDescriptor,
  DriverRequest,
  DriverResponse,
  DriverSink,
  PrewarmRequest,
  DriverInspection,
  InspectOptions,
  SessionTransfer,
  DriverListSessionsQuery,
  DriverRenameSessionQuery,
  DriverForkSessionQuery,
  DriverSessionQuery,
  SessionSummary,
  DriverSessionMessagesQuery,
  SessionMessagePage,
  SessionPage,
} from "@adaptor/driver";
import { FeatureUnsupportedError } from "@adaptor/driver";
import {
  captureConfig,
  type CapturedConfig,
  type CliVersionCheck,
  confirmStartedVersion,
  IDLE_SINK,
  ProcessPool,
  StallWatchdog,
  withStallWatchdog,
} from "@adaptor/driver/kit";
import type { CliProcess } from "@adaptor/driver/process";
import { AppServerSession } from "./app-server/app-server-session.js";
import { defaultCodexCommand } from "./command.js";
import { requireCodexVersion } from "./version-check.js";
import { validateCodexConfig, type CodexConfig } from "./config.js";
import { checkCodexPrompt } from "./prompt-limit.js";
import { checkCodexEffort, MINIMAL_EFFORT_NO_WEB_SEARCH, minimalEffortRequest } from "./effort.js";
import { CODEX_DESCRIPTOR, CODEX_EXEC_DESCRIPTOR } from "./descriptor.js";
import { toStrictOutputSchema } from "./output-schema/strict-output-schema.js";
import { codexEnforcement, planPolicy, type CodexPolicyPlan } from "./policy.js";
import { withAdditionalDirectories } from "./additional-directories.js";
import { checkWritableRoots } from "./app-server/writable-roots.js";
import { codexLaunchSignature } from "./session/launch-signature.js";
import { readCheckpointData } from "./session/checkpoint-data.js";
import { inspectCodex } from "./inspect/inspect-codex.js";
import { readCodexSessionInfo } from "./session-list/codex-session-info.js";
import { renameCodexSession } from "./session-edit/rename-codex-session.js";
import { forkCodexSession } from "./session-edit/fork-codex-session.js";
import { listCodexSessions } from "./session-list/list-codex-sessions.js";
import { readCodexMessages } from "./session-messages/read-codex-messages.js";
import { codexHomeOf, codexSessionTransfer } from "./session-state/codex-session-transfer.js";

/**
 * Drives the real `codex` binary (pinned `@openai/codex` 0.171.0). Transport `"app-server"`
 * (default): `codex app-server` JSON-RPC with streaming, real approvals, resume and fork
 * (docs/protocols.md). Transport `"exec"`: the batch `codex exec --json`, one process per
 * run. The thread id from codex's reply is the resume id. Thread turns (`request.reuseProcess`) on
 * app-server run on the live process parked after the thread's previous turn when every spawn input
 * is unchanged — just a `turn/start` on the thread it already has loaded; a prompt written to a
 * process is never written again.
 */
export class CodexDriver implements Driver {
  /** {@link CODEX_DESCRIPTOR}, or {@link CODEX_EXEC_DESCRIPTOR} for `transport: "exec"`. */
  readonly descriptor: DriverDescriptor;
  /** The captured configuration (a frozen copy of what was passed). */
  readonly config: CodexConfig;
  /** Parked, pre-warmed and live app-server processes (and live exec processes), and the spawn limit. */
  readonly #pool: ProcessPool<AppServerSession>;
  /** The config as captured (a refusal is kept for {@link validateConfig}). */
  readonly #captured: CapturedConfig<CodexConfig>;
  /** Exports and imports thread rollouts, so a thread continues on another host (see `codexSessionTransfer`). */
  readonly sessions: SessionTransfer;

  constructor(config: CodexConfig = {}) {
    // An invalid config is reported by validateConfig() before any run, not thrown from here.
    this.#captured = captureConfig(validateCodexConfig, config);
    const checked = (this.config = this.#captured.config);
    this.descriptor = checked.transport === "exec" ? CODEX_EXEC_DESCRIPTOR : CODEX_DESCRIPTOR;
    this.#pool = new ProcessPool<AppServerSession>(checked);
    this.sessions = codexSessionTransfer(checked, (threadId) => this.#pool.evict(threadId));
  }

  /** Checks the host without a model call; see `Driver.inspect`. */
  inspect(options?: InspectOptions): Promise<DriverInspection> {
    return inspectCodex(this, options);
  }

  /**
   * One page of codex's threads in this host's Codex home (`codexHome`, else `CODEX_HOME` of the
   * merged environment, else `~/.codex`), most recently updated first, from `thread/list` on a
   * short-lived `codex app-server` (on either transport); see `Driver.listSessions` and
   * `listCodexSessions`.
   * @throws InvalidDriverConfigError; as `listCodexSessions`.
   */
  listSessions(query: DriverListSessionsQuery, signal?: AbortSignal): Promise<SessionPage> {
    this.validateConfig();
    return listCodexSessions(this.config.command ?? defaultCodexCommand(), this.config, query, signal);
  }

  /**
   * One page of the messages of codex's thread `query.sessionId` in this host's Codex home (as
   * {@link listSessions}), oldest first, from `thread/turns/list` on a short-lived
   * `codex app-server` (on either transport), split into model replies by the thread's rollout
   * files; see `Driver.getSessionMessages` and `readCodexMessages`.
   * @returns `undefined` when codex holds no thread of that id in this home.
   * @throws InvalidDriverConfigError; as `readCodexMessages`.
   */
  getSessionMessages(query: DriverSessionMessagesQuery, signal?: AbortSignal): Promise<SessionMessagePage | undefined> {
    this.validateConfig();
    return readCodexMessages(this.config.command ?? defaultCodexCommand(), this.config, query, signal);
  }

  /**
   * The summary of codex's thread `query.sessionId` in this host's Codex home, from `thread/read`
   * on a short-lived `codex app-server`; see `Driver.getSessionInfo` and `readCodexSessionInfo`.
   * @returns `undefined` when codex holds no thread of that id in this home.
   * @throws InvalidDriverConfigError; as `readCodexSessionInfo`.
   */
  getSessionInfo(query: DriverSessionQuery, signal?: AbortSignal): Promise<SessionSummary | undefined> {
    this.validateConfig();
    return readCodexSessionInfo(this.config.command ?? defaultCodexCommand(), this.config, query, signal);
  }

  /**
   * Names codex's thread `query.sessionId` with `thread/name/set` on a short-lived
   * `codex app-server`; see `Driver.renameSession` and `renameCodexSession`.
   * @returns `false` when codex holds no thread of that id in this home.
   * @throws InvalidDriverConfigError; as `renameCodexSession`.
   */
  renameSession(query: DriverRenameSessionQuery, signal?: AbortSignal): Promise<boolean> {
    this.validateConfig();
    return renameCodexSession(this.config.command ?? defaultCodexCommand(), this.config, query, signal);
  }

  /**
   * Forks codex's thread `query.sessionId` with `thread/fork` (through the turn that ends with
   * `query.upToMessageId`), named with `thread/name/set`, on a short-lived `codex app-server`;
   * see `Driver.forkSession` and `forkCodexSession`.
   * @returns the fork's thread id, or `undefined` when codex holds no thread of that id in this home.
   * @throws InvalidDriverConfigError; as `forkCodexSession`.
   */
  forkSession(query: DriverForkSessionQuery, signal?: AbortSignal): Promise<string | undefined> {
    this.validateConfig();
    return forkCodexSession(this.config.command ?? defaultCodexCommand(), this.config, query, signal);
  }

  /** @throws InvalidDriverConfigError (see {@link validateCodexConfig}). */
  validateConfig(): void {
    this.#captured.validate();
  }

  /** Number of live app-server processes parked for reuse. */
  get parkedProcesses(): number {
    return this.#pool.parkedCount;
  }

  /**
   * Runs one turn; see {@link Driver.run} for the verdict contract. Before anything is launched it
   * refuses what the descriptor lacks (policy, approval modes) and output schemas strict mode cannot
   * express. A turn with effort `minimal` and `policy.webSearch` unset runs with web search off (a
   * `notice` `policy.adjusted` and the `webSearch` enforcement entry say so).
   *
   * @throws InvalidDriverConfigError, InvalidPolicyError, PolicyCapabilityUnsupportedError,
   * HumanDecisionModeUnsupportedError, InvalidOutputSchemaError, InvalidOptionError (field `prompt`,
   * text over 1,048,576 characters, codex's own limit; field `effort`, when `configOverrides` also
   * sets `model_reasoning_effort`, or for `minimal` with `policy.webSearch` `allow`, which the OpenAI
   * API refuses) before launch; PolicyCapabilityUnsupportedError
   * after `thread/start` and before the turn for sandbox `read_only` / `workspace_write` with
   * permission `inherit` when codex's own approval policy is not `never` (the process ended);
   * FeatureUnsupportedError (feature `additionalDirectories`) before launch for
   * `additionalDirectories` with no policy sandbox, and (app-server) for a thread turn under
   * `workspace_write` without a writable root codex keeps from an earlier turn (before launch when
   * the thread's checkpoint records it, else once the thread is open and before the turn, the
   * process ended); InvalidOptionError (field `additionalDirectories`) before launch when
   * `configOverrides` sets the writable roots too, (field `additionalDirectories[i]`) under
   * `workspace_write` for a directory that resolves to `/` or contains the run's Codex home;
   * FeatureUnsupportedError (feature `"cliVersion"`) for a codex older than `MIN_CODEX_VERSION`,
   * before any process of the run starts (the default executable's package version, else
   * `codex --version` asked once per binary; a refusal is not remembered, the probe ends at once
   * with `signal`), or on app-server before the thread opens when codex's `initialize` answer names
   * an older version than the remembered `--version` answer (the process ended); DriverError `NOT_FOUND` when the executable is missing; `signal.reason` (or a `FORCE_KILLED` DriverError
   * carrying it) after a cancel, once the process is gone.
   */
  async run(asked: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    signal.throwIfAborted();
    this.validateConfig();
    checkCodexPrompt(asked.prompt);
    checkCodexEffort(asked.effort, this.config);
    const { request, webSearchOff } = minimalEffortRequest(asked, readCheckpointData(asked.session?.data).effort);
    const planned = this.#plan(request);
    const plan: CodexPolicyPlan = webSearchOff ? { ...planned, webSearchOffForEffort: MINIMAL_EFFORT_NO_WEB_SEARCH } : planned;
    if (webSearchOff)
      sink.emit({
        type: "notice",
        kind: "policy.adjusted",
        message: `web search off for this turn: ${MINIMAL_EFFORT_NO_WEB_SEARCH}`,
        data: { field: "webSearch", value: "deny", effort: "minimal" },
      });
    const outputSchema = request.outputSchema ? toStrictOutputSchema(request.outputSchema) : undefined;
    // The roots codex keeps for an app-server thread, as its checkpoint recorded them (checked again once it is open).
    if (this.config.transport !== "exec")
      checkWritableRoots(plan, readCheckpointData(request.session?.data).writableRoots, this.descriptor.type);
    const command = this.config.command ?? defaultCodexCommand();
    const version = await requireCodexVersion(command, this.config, request, sink, signal);
    const transport = this.config.transport === "exec" ? "exec" : "app-server";
    if (transport === "app-server") {
      const { response, plan: checked } = await this.#runAppServer(command, request, sink, signal, plan, outputSchema, version);
      return { ...response, enforcement: codexEnforcement(request.policy, checked, transport) };
    }
    const enforcement = codexEnforcement(request.policy, plan, transport);
    // The SDK refuses MCP servers on exec before this (the descriptor lists no transport); the driver's own guard.
    if (request.mcpServers?.length)
      throw new FeatureUnsupportedError(
        this.descriptor.type,
        "mcpServers",
        "codex exec takes no MCP servers; use the app-server transport",
      );
    // `codex exec resume` can only continue the parent's own thread: a fork would share it.
    if (request.session?.fork)
      throw new FeatureUnsupportedError(this.descriptor.type, "fork", "codex exec cannot fork a thread; use the app-server transport");
    // The exec transport's code is loaded by its first run: an app-server host never loads it.
    const { runExec } = await import("./exec/exec-run.js");
    const response = await runExec({
      command,
      config: this.config,
      request,
      sink,
      signal,
      plan,
      outputSchema,
      track: (proc: CliProcess) => this.#pool.track(proc),
      enforcement,
    });
    // Not spread into a new object: the response's transcript is made when first read.
    return response;
  }

  /** The working directory of a run without `request.cwd`: the config's `cwd` (undefined: `process.cwd()`). */
  get cwd(): string | undefined {
    return this.config.cwd;
  }

  /**
   * What decides whether a stored codex thread can be continued by this driver (part of a thread's
   * fingerprint): the driver type, transport, model and `CODEX_HOME` (where the rollouts live).
   * With portable sessions `CODEX_HOME` is left out: the rollout travels with the checkpoint.
   */
  fingerprint(context?: { readonly portableSessions?: boolean }): unknown {
    return {
      type: "codex",
      transport: this.config.transport ?? "app-server",
      model: this.config.model ?? null,
      codexHome: context?.portableSessions ? null : (this.config.codexHome ?? this.config.env?.["CODEX_HOME"] ?? null),
    };
  }

  /** Number of pre-warmed app-server processes waiting for their first turn (see {@link prewarm}). */
  get prewarmedProcesses(): number {
    return this.#pool.prewarmedCount;
  }

  /**
   * Starts one `codex app-server` process for a future first turn launched from `request`'s inputs
   * and resolves `true` once it answered `initialize` and opened a new thread for it. A run of a
   * fresh thread (no `session`) with the same launch signature takes it instead of spawning (a
   * `notice` `process reused` with `prewarmed: true` says so) and only starts its turn; a run with any other config, cwd, env,
   * model, policy, MCP servers or output schema never does. After a healthy run (not a thread turn,
   * no MCP servers) that left no process of its own running, the process does not exit: it unloads
   * that run's thread, opens a new one and waits for the next such first turn (the run's response
   * then has no `exit`); any other run ends it as usual, together with what its turn started. An
   * unused process ends after `idleMs` (default 5 minutes) and on {@link close}. Transport `exec`
   * cannot be pre-warmed: resolves `false`, nothing started.
   *
   * @throws InvalidDriverConfigError, InvalidPolicyError, PolicyCapabilityUnsupportedError before
   * launch; FeatureUnsupportedError (feature `"cliVersion"`) for a codex older than
   * `MIN_CODEX_VERSION`, as a run is refused; DriverError `NOT_FOUND` for a missing executable;
   * DriverError `DEVICE_DISCONNECTED` when codex exits before it is ready; `signal.reason` when
   * aborted (the process is ended).
   */
  async prewarm(request: PrewarmRequest, signal: AbortSignal = new AbortController().signal): Promise<boolean> {
    signal.throwIfAborted();
    this.validateConfig();
    if (this.config.transport === "exec") return false;
    const plan = this.#plan(request);
    if (request.outputSchema) toStrictOutputSchema(request.outputSchema);
    const command = this.config.command ?? defaultCodexCommand();
    const version = await requireCodexVersion(command, this.config, request, IDLE_SINK, signal);
    const first: DriverRequest = { ...request, runId: "prewarm", prompt: "" };
    const signature = codexLaunchSignature(command, this.config, first);
    await this.#pool.prewarm(
      signature,
      () =>
        AppServerSession.spawn(
          { command, config: this.config, request: first, signature, schedule: (spawn) => this.#pool.spawn(spawn) },
          IDLE_SINK,
        ),
      async (session) => {
        // A codex silent for stallTimeoutMs while it is made ready (an initialize never answered)
        // ends the pre-warm with the stall's TIMEOUT, as it would end a run.
        const stall = { timeoutMs: this.config.stallTimeoutMs, device: "codex" };
        await withStallWatchdog(session.proc, stall, signal, async (readySignal) => {
          await confirmStartedVersion(
            version,
            () => session.reportedVersion(readySignal),
            () => session.close(),
          );
          await session.prewarm(first, plan, readySignal);
        });
      },
      signal,
      "codex app-server",
    );
    return true;
  }

  /**
   * The codex settings of `request`'s policy and additional directories (see `planPolicy` and
   * `withAdditionalDirectories`), before anything is launched.
   */
  #plan(request: PrewarmRequest): CodexPolicyPlan {
    const bestEffort = this.config.bestEffortPolicy === true;
    const planned = planPolicy(request.policy, this.descriptor, bestEffort, this.config, request.mcpServers);
    return withAdditionalDirectories(planned, request.additionalDirectories, this.descriptor.type, codexHomeOf(this.config, request.env));
  }

  /** Ends the process parked for the conversation `resumeId`, if any (see `Driver.releaseSession`). Never rejects. */
  releaseSession(resumeId: string): Promise<void> {
    return this.#pool.evict(resumeId);
  }

  /** Ends every live, parked and pre-warmed process of this driver. Idempotent. */
  async close(): Promise<void> {
    await this.#pool.close();
  }

  /**
   * A thread turn that may reuse (`request.reuseProcess`, not a fork) takes the thread's parked
   * process when its launch signature matches; any other turn on an existing thread first ends a
   * parked process of that thread (one writer per thread), then spawns. A healthy reusable turn
   * parks its process under the thread id codex reported.
   */
  async #runAppServer(
    command: string,
    request: DriverRequest,
    sink: DriverSink,
    signal: AbortSignal,
    plan: CodexPolicyPlan,
    outputSchema: Record<string, unknown> | undefined,
    cliVersion: CliVersionCheck,
  ): Promise<{ response: DriverResponse; plan: CodexPolicyPlan }> {
    const signature = codexLaunchSignature(command, this.config, request);
    const reusable = request.reuseProcess === true && !request.session?.fork;
    const version = readCheckpointData(request.session?.data).lastTurnId;
    const acquired = await this.#pool.acquire({ request, signature, version, sink });
    // A fresh conversation takes only a pre-warmed process; one without MCP servers (whose processes
    // belong to the run) goes back to the pre-warmed ones after a healthy turn instead of exiting.
    const handBack = acquired !== undefined && !request.session && !reusable && !request.mcpServers?.length;
    const session =
      acquired ??
      (await AppServerSession.spawn(
        { command, config: this.config, request, signature, schedule: (spawn) => this.#pool.spawn(spawn) },
        sink,
      ));
    // No output for stallTimeoutMs (time waiting on a human aside) ends the turn like a cancel, with a TIMEOUT verdict.
    const watchdog = new StallWatchdog(session.proc, { timeoutMs: this.config.stallTimeoutMs, device: "codex" });
    const turnSignal = AbortSignal.any([signal, watchdog.signal]);
    // A version `--version` gave is confirmed with codex's answer to `initialize` before the thread opens.
    if (!acquired) {
      await confirmStartedVersion(
        cliVersion,
        () => session.reportedVersion(turnSignal),
        () => session.close(),
      ).catch((error: unknown) => {
        watchdog.close();
        throw error;
      });
    }
    const turnInit = { request, sink: watchdog.sink(sink), signal: turnSignal, plan, outputSchema };
    const { response, checked, rearm } = await this.#pool.serve(session, async () => {
      const turn = await session.runTurn({ ...turnInit, keepAlive: reusable, handBack }).finally(() => watchdog.close());
      const { response, alive } = turn;
      const threadId = session.threadId;
      if (alive && handBack) return { response, checked: turn.plan, rearm: true };
      if (alive && threadId && session.usable) this.#pool.park(threadId, session);
      else if (alive) await session.close();
      return { response, checked: turn.plan, rearm: false };
    });
    if (rearm) this.#rearm(signature, session, request, plan);
    return { response, plan: checked };
  }

  /**
   * Puts a pre-warmed process whose run is over back among the pre-warmed ones, with a new thread
   * opened for the next first turn of `signature` (in the background: the run's verdict does not
   * wait). It is ended when that fails, on {@link close} and after `idleMs` unused.
   */
  #rearm(signature: string, session: AppServerSession, request: DriverRequest, plan: CodexPolicyPlan): void {
    const next: DriverRequest = { ...request, runId: "prewarm", prompt: "" };
    const ready = (process: AppServerSession): Promise<void> => process.rearm(next, plan, new AbortController().signal);
    // A failure has already ended the process (ProcessPool.prewarm); the next first turn spawns.
    this.#pool
      .prewarm(signature, () => Promise.resolve(session), ready, new AbortController().signal, "codex app-server")
      .catch(() => undefined);
  }
}
