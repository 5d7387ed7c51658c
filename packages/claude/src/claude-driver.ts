import { randomUUID } from "node:crypto";
import {
  assertPolicySupported,
  type Driver,
  type DriverDescriptor,
  type DriverRequest,
  type DriverResponse,
  type DriverSink,
  type PrewarmRequest,
  type DriverInspection,
  type InspectOptions,
  type SessionTransfer,
  type DriverListSessionsQuery,
  type DriverSessionMessagesQuery,
  type DriverSessionQuery,
  type DriverRenameSessionQuery,
  type DriverTagSessionQuery,
  type DriverForkSessionQuery,
  type SessionSummary,
  type SessionMessagePage,
  type SessionPage,
} from "@adaptor/driver";
import {
  captureConfig,
  type CapturedConfig,
  deepFreeze,
  graceMs,
  IDLE_SINK,
  ProcessPool,
  requireCliVersion,
  type CliVersionCheck,
  confirmStartedVersion,
  spawnLimits,
  StallWatchdog,
  withStallWatchdog,
  responseExit,
} from "@adaptor/driver/kit";
import { forceKilledError, launchSecrets, rawStreams, spawnCli, waitForCpuIdle } from "@adaptor/driver/process";
import { validateClaudeConfig, type ClaudeConfig } from "./config.js";
import { claudeEnv, prepareLaunch } from "./launch/launch.js";
import { CLAUDE_PACKAGE_BINARIES, CLAUDE_VERSION_FLOOR, defaultClaudeCommand, defaultClaudeVersion } from "./command.js";
import { claudeEnforcement } from "./launch/policy.js";
import { classifyTurn } from "./protocol/classify.js";
import { lastAssistantText, partialText } from "./protocol/partial-text.js";
import { lastStructuredAttempt, STRUCTURED_RETRIES_SPENT } from "./protocol/structured-attempt.js";
import { checkpointData, readCheckpointData } from "./session/checkpoint-data.js";
import { ClaudeSession, type TurnOutcome } from "./session/claude-session.js";
import { addUsage } from "./session/cli-own-turns.js";
import { claudeLaunchSignature } from "./session/launch-signature.js";
import { inspectClaude } from "./inspect/inspect-claude.js";
import { readClaudeMessages } from "./session-messages/read-claude-messages.js";
import { listClaudeSessions } from "./session-list/list-claude-sessions.js";
import { readClaudeSessionInfo } from "./session-list/claude-session-info.js";
import { renameClaudeSession, tagClaudeSession } from "./session-edit/append-claude-entry.js";
import { forkClaudeSession } from "./session-edit/fork-claude-session.js";
import { claudeSessionTransfer, unlinkPlantedTranscripts } from "./session-state/claude-session-transfer.js";

const DEVICE = "claude";

/** Capabilities proved against claude 2.1.332 in this package's tests. */
export const CLAUDE_DESCRIPTOR: DriverDescriptor = deepFreeze<DriverDescriptor>({
  type: "claude",
  displayName: "Claude Code",
  capabilities: {
    // modelSwitch: `--resume` with another `--model` continues the transcript (test/claude/model-switch.test.ts).
    // list: the transcripts of the CLI home's projects folder (test/claude/list-sessions.test.ts).
    sessions: {
      resume: true,
      fork: true,
      fromCheckpoint: true,
      modelSwitch: true,
      list: true,
      messages: true,
      info: true,
      rename: true,
      tag: true,
      forkSession: true,
    },
    processReuse: true,
    // native: --json-schema, value from the result line's structured_output; prompt: instructions +
    // final text (test/structured-output.test.ts).
    structuredOutput: { native: true, prompt: true },
    skills: true,
    // callIds: every tools/call carries `_meta["claudecode/toolUseId"]`, the call's reported id
    // (test/claude/host-tool-trust.test.ts).
    mcp: { transports: ["stdio", "http"], callIds: true },
    policy: { sandbox: ["read_only", "unrestricted"], webSearch: ["deny"], browser: [], activeExecutionTimeout: false },
    approvals: {
      permission: ["inherit", "ask", "auto_approve", "auto_deny"],
      plan_review: ["inherit", "ask", "auto_approve", "auto_deny"],
      question: ["inherit", "ask", "auto_deny"],
      elicitation: ["inherit", "ask", "auto_deny"],
    },
    // What claude 2.1.332 runs without asking under `ask` (test/claude/unasked-tools.test.ts):
    // Read, ToolSearch and the session's task list; Glob and Grep are read-only where offered.
    askExemptTools: ["Read", "Glob", "Grep", "ToolSearch", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "StructuredOutput"],
    systemPrompt: ["replace", "append"],
    // --agents: the Task tool offers them (test/claude/subagents.test.ts).
    subagents: true,
    toolRules: true,
    additionalDirectories: true,
    planMode: true,
    // --effort (low | medium | high): the Messages request's `output_config.effort`, on the models
    // that take one (test/claude/effort.test.ts). Claude Code has no "minimal".
    effort: ["low", "medium", "high"],
    // Base64 image blocks before the text of the user line (test/claude/images.test.ts).
    images: true,
    // interrupt: the `interrupt` control request, the process kept; send: a user line during the
    // turn; setModel: the `set_model` control request; approvalMode: the CLI asks the same whatever
    // the modes, which the SDK applies (test/claude/during-turn.test.ts).
    turnControl: { interrupt: true, send: true, sendImages: true, setModel: true, approvalMode: true },
    // A model.response notice per main-conversation response; --max-turns and --max-budget-usd too.
    budgets: { turns: true, costUsd: true },
    // Each point a CLI hook registered in `initialize` and answered over `hook_callback`
    // (test/claude/hooks.test.ts, test/claude/life-hooks.test.ts); a tool hook's matcher is the
    // registration's, so the CLI stops only for the calls it names.
    hooks: [
      "beforeToolCall",
      "afterToolCall",
      "promptSubmit",
      "stop",
      "sessionStart",
      "sessionEnd",
      "notification",
      "preCompact",
      "subagentStart",
      "subagentStop",
    ],
    hookMatchers: true,
    streaming: { textDeltas: true, thinking: true, toolCallArgs: true },
  },
});

/**
 * Drives the real `claude` binary in stream-json mode (docs/protocols.md "Claude Code"): the prompt goes on stdin as a user line,
 * every `can_use_tool` control request becomes an approval, the first `result` line is the
 * terminal, cancellation sends the CLI's `interrupt` before signals. Thread turns
 * (`request.reuseProcess`) run on a live process parked after the session's previous turn when
 * every spawn input is unchanged and the process's conversation ends at the turn's checkpoint; a
 * prompt written to a process is never written again. A turn that resumes in a new process starts
 * at the checkpoint's last message (`--resume-session-at`), so a failed, cancelled or denied turn
 * leaves no trace in the conversation. `costUsd` is the turn's own cost, never the session's
 * running total. A turn with `budget.maxCostUsd` is never followed on its process: the CLI's
 * `--max-budget-usd` counts the process's whole spend, so the next turn resumes in a new process.
 */
export class ClaudeDriver implements Driver {
  /** What this driver can do (see the README's capability table). */
  readonly descriptor = CLAUDE_DESCRIPTOR;
  /** The configuration captured at construction. */
  readonly config: ClaudeConfig;
  /** Parked, pre-warmed and live processes, and the spawn limit. */
  readonly #pool: ProcessPool<ClaudeSession>;
  /** Where each process's stderr goes: the sink of the run it serves now. */
  readonly #stderrTo = new WeakMap<ClaudeSession, { sink: DriverSink }>();
  /** Sessions started on a version `--version` gave, confirmed with the started CLI's own before their first turn. */
  readonly #unconfirmed = new WeakMap<ClaudeSession, CliVersionCheck>();
  /** Pre-warmed processes that have not served a turn yet. */
  readonly #prewarmed = new WeakSet<ClaudeSession>();
  /** The config as captured (a refusal is kept for {@link validateConfig}). */
  readonly #captured: CapturedConfig<ClaudeConfig>;
  /** Exports and imports session transcripts, so a thread continues on another host (see `claudeSessionTransfer`). */
  readonly sessions: SessionTransfer;

  constructor(config: ClaudeConfig = {}) {
    // An invalid config is reported by validateConfig() before any run, not thrown from here.
    this.#captured = captureConfig(validateClaudeConfig, config);
    const checked = (this.config = this.#captured.config);
    // A link planted in place of a parked process's transcript goes before the process ends: it
    // appends its exit lines to its transcript by path.
    this.#pool = new ProcessPool<ClaudeSession>(checked, (resumeId, session) => unlinkPlantedTranscripts(session.place, resumeId));
    this.sessions = claudeSessionTransfer(
      checked,
      (resumeId) => this.#pool.evict(resumeId),
      (resumeId) => this.#pool.holdsParked(resumeId),
    );
  }

  /** Checks the host without a model call; see `Driver.inspect`. */
  inspect(options?: InspectOptions): Promise<DriverInspection> {
    return inspectClaude(this, options);
  }

  /**
   * One page of the CLI's own sessions in this host's CLI home (`configDir`, else
   * `CLAUDE_CONFIG_DIR` of the merged environment, else `~/.claude`), most recently modified
   * first; see `Driver.listSessions` and `listClaudeSessions`. No process is started.
   * @throws InvalidDriverConfigError; InvalidOptionError (field `cursor`) for a cursor this driver
   * did not give; the I/O error of an unreadable projects folder; `signal.reason` when aborted.
   */
  listSessions(query: DriverListSessionsQuery, signal?: AbortSignal): Promise<SessionPage> {
    this.validateConfig();
    return listClaudeSessions(this.config, query, signal);
  }

  /**
   * One page of the messages of the CLI's session `query.sessionId` in this host's CLI home (as
   * {@link listSessions}), oldest first; see `Driver.getSessionMessages` and `readClaudeMessages`.
   * No process is started.
   * @returns `undefined` when the home holds no transcript of that id.
   * @throws InvalidDriverConfigError; as `readClaudeMessages`.
   */
  getSessionMessages(query: DriverSessionMessagesQuery, signal?: AbortSignal): Promise<SessionMessagePage | undefined> {
    this.validateConfig();
    return readClaudeMessages(this.config, query, signal);
  }

  /**
   * The summary of the CLI's session `query.sessionId` in this host's CLI home, from that one
   * transcript; see `Driver.getSessionInfo` and `readClaudeSessionInfo`. No process is started.
   * @returns `undefined` when the home holds no transcript of that id.
   * @throws InvalidDriverConfigError; as `readClaudeSessionInfo`.
   */
  getSessionInfo(query: DriverSessionQuery, signal?: AbortSignal): Promise<SessionSummary | undefined> {
    this.validateConfig();
    return readClaudeSessionInfo(this.config, query, signal);
  }

  /**
   * Titles the CLI's session `query.sessionId` with a `custom-title` entry appended to its
   * transcript, as `/rename` does; see `Driver.renameSession` and `renameClaudeSession`.
   * @returns `false` when the home holds no transcript of that id.
   * @throws InvalidDriverConfigError; as `renameClaudeSession`.
   */
  renameSession(query: DriverRenameSessionQuery, signal?: AbortSignal): Promise<boolean> {
    this.validateConfig();
    return renameClaudeSession(this.config, query, signal);
  }

  /**
   * Tags the CLI's session `query.sessionId` with a `tag` entry appended to its transcript, as the
   * Claude Agent SDK's `tagSession` does; see `Driver.tagSession` and `tagClaudeSession`.
   * @returns `false` when the home holds no transcript of that id.
   * @throws InvalidDriverConfigError; as `tagClaudeSession`.
   */
  tagSession(query: DriverTagSessionQuery, signal?: AbortSignal): Promise<boolean> {
    this.validateConfig();
    return tagClaudeSession(this.config, query, signal);
  }

  /**
   * Copies the CLI's session `query.sessionId` into a new transcript in the same project folder,
   * new uuids on the same chain, as the Claude Agent SDK's `forkSession` does; see
   * `Driver.forkSession` and `forkClaudeSession`. No process is started.
   * @returns the fork's id, or `undefined` when the home holds no transcript of that id.
   * @throws InvalidDriverConfigError; as `forkClaudeSession`.
   */
  forkSession(query: DriverForkSessionQuery, signal?: AbortSignal): Promise<string | undefined> {
    this.validateConfig();
    return forkClaudeSession(this.config, query, signal);
  }

  /** @throws InvalidDriverConfigError (see {@link validateClaudeConfig}). */
  validateConfig(): void {
    this.#captured.validate();
  }

  /** The working directory of a run without `request.cwd`: the config's `cwd` (undefined: `process.cwd()`). */
  get cwd(): string | undefined {
    return this.config.cwd;
  }

  /**
   * Compatibility-relevant config for thread fingerprints: the executable, config dir and extra
   * flags. With portable sessions the config dir is left out: the transcript travels with the
   * checkpoint.
   */
  fingerprint(context?: { readonly portableSessions?: boolean }): unknown {
    const configDir = context?.portableSessions ? null : (this.config.configDir ?? null);
    return { command: this.config.command ?? null, configDir, extraArgs: this.config.extraArgs ?? [] };
  }

  /** Number of live processes parked for reuse. */
  get parkedProcesses(): number {
    return this.#pool.parkedCount;
  }

  /** Number of pre-warmed processes waiting for their first turn (see {@link prewarm}). */
  get prewarmedProcesses(): number {
    return this.#pool.prewarmedCount;
  }

  /**
   * Starts one claude process for a future first turn launched from `request`'s inputs and
   * resolves `true` once the CLI answered its `initialize` control request (it is then reading stdin),
   * assembled the first prompt's context (a `get_context_usage` control request answered locally:
   * no model call, nothing written to the conversation) and the start-up work it does after that has
   * settled (on Linux: no CPU used for 150 ms, waited for at most 2 s), so that work is not paid in
   * the first turn.
   * A run of a fresh conversation (no `session`) with the same launch signature takes it instead
   * of spawning (a `notice` `process reused` with `prewarmed: true` says so); a run with any other
   * config, cwd, env, model, policy, MCP servers, skills or output schema never does. An unused
   * process ends after `idleMs` (default 5 minutes) and on {@link close}. A turn on it answers as
   * soon as its result is in: a thread turn that may reuse its process parks it as usual; any other
   * healthy turn ends it in the background as a one-shot turn would (stdin closed, the grace, then
   * SIGTERM; {@link close} ends it at once), so its response has no `exit`.
   *
   * @throws InvalidDriverConfigError, PolicyCapabilityUnsupportedError before launch;
   * FeatureUnsupportedError (feature `"cliVersion"`) for a claude older than `MIN_CLAUDE_VERSION`,
   * before it is started (or, when its `initialize` answer contradicts a remembered `--version`
   * answer, before the process is kept: it is ended); DriverError `NOT_FOUND` for a missing executable; DriverError `DEVICE_DISCONNECTED` when the CLI ends before
   * it is ready; `signal.reason` when aborted (the process is ended).
   */
  async prewarm(request: PrewarmRequest, signal: AbortSignal = new AbortController().signal): Promise<boolean> {
    signal.throwIfAborted();
    this.validateConfig();
    assertPolicySupported(this.descriptor, request.policy);
    const first: DriverRequest = { ...request, runId: "prewarm", prompt: "" };
    const signature = claudeLaunchSignature(this.config, first);
    // The CLI goes on with start-up work after answering initialize (settings, plugins, hooks), and
    // assembles the first prompt's context lazily: let both happen here rather than in the first turn.
    // A CLI silent for stallTimeoutMs while it is made ready (an initialize never answered) ends
    // the pre-warm with the stall's TIMEOUT, as it would end a run.
    const ready = async (session: ClaudeSession): Promise<void> => {
      const stall = { timeoutMs: this.config.stallTimeoutMs, device: DEVICE };
      await withStallWatchdog(session.proc, stall, signal, async (readySignal) => {
        await this.#confirmVersion(session, readySignal);
        if (!session.initialized) await session.initialize(readySignal);
        await session.warmContext(readySignal);
        await waitForCpuIdle(session.proc.pid, { signal: readySignal });
      });
      this.#prewarmed.add(session);
    };
    await this.#pool.prewarm(signature, () => this.#spawn(first, IDLE_SINK, signature, signal), ready, signal, "claude process");
    return true;
  }

  /**
   * Runs one turn; see {@link Driver.run} for the verdict contract. A new process is started only
   * on a claude of `MIN_CLAUDE_VERSION` or newer: the default binary's package version, else
   * `claude --version` (asked once per binary and process; a refusal is not remembered, and the
   * probe ends at once with `signal`). A version `--version` gave is confirmed with the one the new
   * process names in its `initialize` answer before the prompt is written (a version manager's
   * shim may run another claude by now).
   *
   * @throws FeatureUnsupportedError (feature `"cliVersion"`) for an older claude, before it is
   * started, or before the prompt is written when its `initialize` answer names an older version
   * than the remembered one (the process is ended).
   */
  async run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    signal.throwIfAborted();
    assertPolicySupported(this.descriptor, request.policy);
    const signature = claudeLaunchSignature(this.config, request);
    const reusable = request.reuseProcess === true && !request.session?.fork;
    // A parked process serves the turn only while its conversation ends at the turn's checkpoint.
    const version = readCheckpointData(request.session?.data)?.lastMessageId;
    const session =
      (await this.#pool.acquire({ request, signature, version, sink })) ?? (await this.#spawn(request, sink, signature, signal));
    // A pre-warmed process answers as soon as its result is in; it then ends in the background.
    const handOver = this.#prewarmed.delete(session);
    const stderr = this.#stderrTo.get(session);
    if (stderr) stderr.sink = sink;
    // No output for stallTimeoutMs (time waiting on a human aside) ends the turn like a cancel, with a TIMEOUT verdict.
    const watchdog = new StallWatchdog(session.proc, { timeoutMs: this.config.stallTimeoutMs, device: DEVICE });
    const runSignal = AbortSignal.any([signal, watchdog.signal]);
    const outcome = await this.#pool
      .serve(session, async () => {
        try {
          await this.#confirmVersion(session, runSignal);
          return await session.runTurn(request.prompt, watchdog.sink(sink), runSignal, reusable || handOver, request.images, request.model);
        } catch (error) {
          await session.close();
          throw error;
        }
      })
      .finally(() => watchdog.close());
    const alive = outcome.exit === undefined;
    if (runSignal.aborted) {
      sink.partial?.(stoppedOutput(outcome));
      await session.close();
      const exit = await session.proc.exited;
      throw exit.forceKilled ? forceKilledError(DEVICE, runSignal.reason) : runSignal.reason;
    }
    const response = { ...this.#response(request, session, outcome), enforcement: claudeEnforcement(request.policy) };
    // The CLI measures --max-budget-usd against everything its process has spent since it started:
    // a process that served a turn with a cost limit is not parked, so the thread's next turn resumes
    // in a fresh process and its limit counts that turn's cost alone. Nor is one the host switched
    // to asking (see ClaudeSession.keepsLaunchMode): the next turn runs under its own policy.
    // A plan-mode turn leaves its process in another permission mode than it was launched in: not
    // parked either, so the next turn starts in the mode its own launch says.
    const parkable = reusable && request.budget?.maxCostUsd === undefined && request.planMode !== true && session.keepsLaunchMode;
    if (alive && !response.failure && parkable && session.sessionId && session.lastMessageId) this.#pool.park(session.sessionId, session);
    else if (alive && !response.failure && !parkable) this.#finishInBackground(session);
    else await session.close();
    return response;
  }

  /** Ends the process parked for the conversation `resumeId`, if any (see `Driver.releaseSession`). Never rejects. */
  releaseSession(resumeId: string): Promise<void> {
    return this.#pool.evict(resumeId);
  }

  /** Ends every live and parked process of this driver. Idempotent. */
  async close(): Promise<void> {
    await this.#pool.close();
  }

  /** Ends `session`'s process without waiting for it (as after a one-shot turn); {@link close} still ends it. */
  #finishInBackground(session: ClaudeSession): void {
    const untrack = this.#pool.track(session);
    const stderr = this.#stderrTo.get(session);
    if (stderr) stderr.sink = IDLE_SINK;
    void session
      .finish(IDLE_SINK)
      .catch(() => undefined)
      .then(() => session.close())
      .finally(untrack);
  }

  async #spawn(request: DriverRequest, sink: DriverSink, signature: string, signal: AbortSignal): Promise<ClaudeSession> {
    // claude names its version only once started (its initialize answer): the default binary's is
    // its package's, as is that of a `command` that is a claude package's binary (its own path, a
    // link to it, another install); another is asked once per binary, before anything of the run
    // is written or started, and confirmed with the initialize answer before the first prompt
    // (#confirmVersion).
    const own = defaultClaudeCommand();
    const command = this.config.command ?? own;
    const installed = command === own ? defaultClaudeVersion() : undefined;
    const check = await requireCliVersion(
      CLAUDE_VERSION_FLOOR,
      {
        command,
        args: ["--version"],
        env: installed === undefined ? claudeEnv(this.config, request) : {},
        cwd: request.cwd ?? this.config.cwd,
        device: DEVICE,
        installed,
        packages: CLAUDE_PACKAGE_BINARIES,
      },
      sink,
      signal,
    );
    // A new conversation gets its id up front (--session-id); the checkpoint still takes the id the CLI reports.
    const launch = await prepareLaunch(this.config, request, request.session ? undefined : randomUUID());
    const stderr = { sink };
    try {
      const proc = await this.#pool.spawn(() =>
        spawnCli({
          command: launch.command,
          args: launch.args,
          cwd: launch.cwd,
          env: launch.env,
          device: DEVICE,
          ...spawnLimits(this.config),
          // What the CLI echoes of its configuration (the MCP servers' headers in its answer to
          // `mcp_status`) or of its environment is kept in raw without the credentials.
          redactRaw: launchSecrets(launch.env, request.mcpServers),
          onStderr: (text) => stderr.sink.emit({ type: "process", kind: "stderr", text }),
        }),
      );
      sink.emit({ type: "process", kind: "spawn", pid: proc.pid });
      const session = new ClaudeSession(
        proc,
        launch,
        signature,
        graceMs(this.config),
        request.session === undefined,
        this.config.askForEveryTool === true,
        request.hooks,
        request.hookMatchers,
      );
      this.#stderrTo.set(session, stderr);
      if (check.confirmable) this.#unconfirmed.set(session, check);
      return session;
    } catch (error) {
      await launch.cleanup();
      throw error;
    }
  }

  /**
   * A version `--version` gave (remembered per binary) is confirmed with the one the started CLI
   * names in its `initialize` answer, before the first prompt is written: a version manager's shim
   * may run another claude by now. An older one than the floor is refused, no turn sent, the
   * process ended. Nothing to confirm for `session`: resolves at once.
   *
   * @throws FeatureUnsupportedError (feature `"cliVersion"`) for a claude older than
   * `MIN_CLAUDE_VERSION`; `signal.reason` when aborted (the process ended).
   */
  async #confirmVersion(session: ClaudeSession, signal: AbortSignal): Promise<void> {
    const check = this.#unconfirmed.get(session);
    if (!check) return;
    this.#unconfirmed.delete(session);
    await confirmStartedVersion(
      check,
      () => session.reportedVersion(signal),
      () => session.close(),
    );
  }

  #response(request: DriverRequest, session: ClaudeSession, outcome: TurnOutcome): DriverResponse {
    const { turn, exit } = outcome;
    const terminal = turn.terminal;
    // An interrupt the host asked for ends the turn with an error result that is no failure.
    const interrupted = outcome.interrupted;
    const failure = interrupted
      ? undefined
      : classifyTurn({
          terminal: terminal?.line,
          exitCode: exit ? exit.code : 0,
          exitSignal: exit ? exit.signal : null,
          ...(exit?.terminated === true ? { endedBySdk: true } : {}),
          stderrTail: session.proc.stderrTail(),
          resuming: request.session !== undefined,
        });
    // The turns the CLI ran by itself since the previous prompt count with this one.
    const usage = addUsage(addUsage(turn.usage(), outcome.partsUsage), outcome.cliOwn?.usage);
    const line = terminal?.line;
    const model = answeringModel(turn);
    const sessionId = turn.sessionId ?? session.sessionId;
    // Out of structured-output retries, the line has no value: the last one the CLI refused is the
    // answer. The CLI then exits with code 1 once the driver closes its stdin: that code reports
    // the answer the SDK judges, not a crash.
    const retriesSpent = line?.subtype === STRUCTURED_RETRIES_SPENT;
    const structured = line?.structured_output ?? (retriesSpent ? lastStructuredAttempt(turn.transcript) : undefined);
    return {
      text: resultText(turn),
      ...(interrupted ? { interrupted: true } : {}),
      ...(structured !== undefined ? { structured } : {}),
      ...(model ? { model } : {}),
      provider: "anthropic",
      ...(usage ? { usage } : {}),
      ...(outcome.costUsd !== undefined ? { costUsd: outcome.costUsd } : {}),
      ...outcome.report,
      transcript: turn.transcript,
      raw: rawStreams(outcome.output, terminal ? { event: "result", json: terminal.json } : undefined),
      ...(!failure && sessionId
        ? { checkpoint: { resumeId: sessionId, ...(turn.lastMessageId ? { data: checkpointData(turn.lastMessageId) } : {}) } }
        : {}),
      ...(failure ? { failure } : {}),
      ...(exit ? { exit: retriesSpent && exit.signal === null ? { ...responseExit(exit), endedByDriver: true } : responseExit(exit) } : {}),
    };
  }
}

/**
 * What a turn stopped by its signal produced: its text, model and transcript so far, and what the
 * result line the CLI wrote as it stopped reports (usage, cost, model responses, usage per model,
 * refused calls).
 */
function stoppedOutput(outcome: TurnOutcome): Parameters<NonNullable<DriverSink["partial"]>>[0] {
  const { turn } = outcome;
  const usage = turn.usage();
  const model = answeringModel(turn);
  const { numTurns, modelUsage, permissionDenials } = outcome.report;
  return {
    text: partialText(turn.transcript),
    ...(usage ? { usage } : {}),
    ...(outcome.costUsd !== undefined ? { costUsd: outcome.costUsd } : {}),
    ...(numTurns !== undefined ? { numTurns } : {}),
    ...(modelUsage ? { modelUsage } : {}),
    ...(permissionDenials ? { permissionDenials } : {}),
    ...(model ? { model } : {}),
    provider: "anthropic",
    transcript: turn.transcript,
  };
}

/**
 * The turn's answer: the `result` line's text. When the CLI ended the turn over a Stop hook that
 * kept asking it to go on (`stop-hook-block-cap`: after `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`
 * consecutive blocks, 9 by default), that line's text is empty although the agent answered: the
 * answer is then the last assistant message, before the hook's last (unread) feedback. A turn
 * that ended without an answer (interrupted, over `--max-turns` or `--max-budget-usd`, out of
 * structured-output retries, failed, or without a result line) has what it wrote so far: those
 * lines' `result` is empty or the error's message.
 */
function resultText(turn: TurnOutcome["turn"]): string {
  const line = turn.terminal?.line;
  if (line && !line.is_error && line.subtype === "success" && typeof line.result === "string") {
    return line.result === "" && turn.notificationKeys.has(STOP_HOOK_BLOCK_CAP) ? lastAssistantText(turn.transcript) : line.result;
  }
  return partialText(turn.transcript);
}

/** The `key` of Claude Code's notification that it ended a turn over a Stop hook's block. */
const STOP_HOOK_BLOCK_CAP = "stop-hook-block-cap";

/**
 * The model that gave the turn's answer: the one its last model response names (a switch during
 * the turn applies to the requests after it only), written as the CLI reported it (`system init`,
 * the `set_model` answer, a fallback) when that is the same model (e.g. with a `[1m]` context
 * suffix the wire id lacks); else the CLI's report, else the result's `modelUsage`.
 */
function answeringModel(turn: TurnOutcome["turn"]): string | undefined {
  const answered = turn.lastResponseModel;
  const reported = turn.model;
  if (answered === undefined) return reported ?? Object.keys(turn.terminal?.line.modelUsage ?? {})[0];
  return reported !== undefined && reported.replace(/\[[^\]]*\]$/, "") === answered ? reported : answered;
}
