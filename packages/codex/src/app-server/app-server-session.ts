import { lstatSync } from "node:fs";
import {
  MCP_CONNECT_OP,
  type ApprovalAsk,
  type DriverFailure,
  type DriverRequest,
  type DriverResponse,
  type DriverSink,
  type McpServerConfig,
  type PermissionDenial,
} from "@adaptor/driver";
import { DriverError, ErrCode } from "@adaptor/errors";
import {
  checkStdioServerCommands,
  descendantBaseline,
  forceKilledError,
  launchSecrets,
  rawStreams,
  spawnCli,
  type CliProcess,
  type ExitInfo,
} from "@adaptor/driver/process";
import {
  beforeNextLine,
  DEFAULT_IDLE_MS,
  DEFAULT_REPLY_TIMEOUT_MS,
  elicitationAsk,
  elicitationResult,
  endTurnBackground,
  exitOrTerminate,
  graceMs,
  JSON_RPC_METHOD_NOT_FOUND,
  raceAbort,
  spawnLimits,
  type JsonRpcConnection,
  type JsonRpcServerRequest,
  type PooledProcess,
  responseExit,
  sessionInit,
} from "@adaptor/driver/kit";
import { reportLateOutput } from "../turn-end.js";
import { classifyCodexTurn, lineageGap, MAX_MODEL_RETRIES, modelUnreachable, plainText, resumeRefusal, retryCause } from "../classify.js";
import type { CodexConfig } from "../config.js";
import { structuredAnswer } from "../output-schema/structured-answer.js";
import { checkInheritedApprovals, withOwnSandbox, WRITABLE_ROOTS_KEY, type CodexPolicyPlan } from "../policy.js";
import { codexEnv, commonArgs } from "../process-helpers.js";
import { readCheckpointData, type CodexCheckpointData } from "../session/checkpoint-data.js";
import { codexHomeOf, forkLineage } from "../session-state/codex-session-transfer.js";
import type { InitializeParams } from "../protocol/generated/InitializeParams.js";
import type { InitializeResponse } from "../protocol/generated/InitializeResponse.js";
import type { ServerRequest } from "../protocol/generated/ServerRequest.js";
import type { ThreadForkParams } from "../protocol/generated/v2/ThreadForkParams.js";
import type { ThreadResumeParams } from "../protocol/generated/v2/ThreadResumeParams.js";
import type { ThreadStartParams } from "../protocol/generated/v2/ThreadStartParams.js";
import type { TurnStartParams } from "../protocol/generated/v2/TurnStartParams.js";
import type { UserInput } from "../protocol/generated/v2/UserInput.js";
import type { ThreadRevertParams } from "../protocol/generated/v2/ThreadRevertParams.js";
import type { ThreadTurnsListParams } from "../protocol/generated/v2/ThreadTurnsListParams.js";
import type { SkillsExtraRootsSetParams } from "../protocol/generated/v2/SkillsExtraRootsSetParams.js";
import type { ThreadInjectItemsParams } from "../protocol/generated/v2/ThreadInjectItemsParams.js";
import type { ThreadTokenUsageUpdatedNotification } from "../protocol/generated/v2/ThreadTokenUsageUpdatedNotification.js";
import type { TokenUsageBreakdown } from "../protocol/generated/v2/TokenUsageBreakdown.js";
import {
  APPROVAL_METHODS,
  V2_APPROVAL_METHODS,
  approvalAnswer,
  approvalAsk,
  effectiveDecision,
  grantsForSession,
  refusesCall,
} from "./approvals.js";
import { requestAnswer, threadOpened, turnStarted, turnsPage, type ThreadOpened } from "./answers.js";
import { SessionGrants } from "./session-grants.js";
import { AppServerCancellation } from "./cancellation.js";
import { CodexRpcError, isTurnEnded, turnControlError } from "./codex-rpc-error.js";
import { codexRpc } from "./codex-rpc.js";
import { parseAppServerLine } from "./parse-line.js";
import {
  codexMcpServers,
  elicitationAnswer,
  MCP_ELICITATION_METHOD,
  mcpElicitation,
  McpStartup,
  requiredMcpFailure,
} from "./mcp-servers.js";
import { appliedAsSent, codexOwnSettings } from "./codex-own-settings.js";
import { checkWritableRoots } from "./writable-roots.js";
import { projectTrustPin } from "./project-trust.js";
import { askUserInput, USER_INPUT_FEATURE, USER_INPUT_METHOD, type UserInputAnswer } from "./user-input.js";
import { stageCodexSkills, type StagedCodexSkills } from "./skills.js";
import { AppServerTurnState, turnIdOf } from "./turn-state.js";
import { TurnLimit } from "./turn-limit.js";
import { userAgentVersion } from "./user-agent.js";
import { contextItems, promptInput, stopContinuation } from "./turn-hooks.js";
import { promptImageFiles } from "../prompt-images/image-files.js";
import { RunFiles } from "../prompt-images/run-files.js";

/** The usage of a turn that completed no model response. */
const NO_TOKENS = Object.freeze({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });

const DEVICE = "codex";
/** Notifications the driver never reads; codex is asked not to send them (`optOutNotificationMethods`). */
const OPTED_OUT = ["account/rateLimits/updated", "remoteControl/status/changed", "thread/status/changed"];
/** What codex logs on stderr when it cannot read a message the driver sent (it never answers that request). */
const UNREADABLE_REQUEST = /Failed to deserialize JSONRPCMessage[^\n]*/;
/** Default of `CodexConfig.handBackSettleMs`, ms. */
const HAND_BACK_SETTLE_MS = 1000;
/** Turns listed per `thread/turns/list` page while looking for the committed turn. */
const TURN_PAGE = 20;

/** What {@link AppServerSession.spawn} needs. */
export interface AppServerSpawn {
  readonly command: string;
  readonly config: CodexConfig;
  readonly request: DriverRequest;
  /** The {@link codexLaunchSignature} of `request`: a parked process is reused only for an equal one. */
  readonly signature: string;
  /** Runs the spawn (the driver bounds concurrent spawns through its ProcessPool). */
  readonly schedule: (spawn: () => Promise<CliProcess>) => Promise<CliProcess>;
}

/** One turn on an {@link AppServerSession}. */
export interface AppServerTurn {
  readonly request: DriverRequest;
  readonly sink: DriverSink;
  readonly signal: AbortSignal;
  readonly plan: CodexPolicyPlan;
  /** The strict form of `request.outputSchema` (already normalised), if any. */
  readonly outputSchema: Record<string, unknown> | undefined;
  /** Leave the process running after a healthy turn, for the next turn of its thread. */
  readonly keepAlive: boolean;
  /**
   * Leave the process running after a healthy turn that left no process of its own running, so it
   * can be made ready for another first turn ({@link AppServerSession.rearm}); otherwise it ends as usual.
   */
  readonly handBack?: boolean;
}

/** How a turn on an {@link AppServerSession} ended. */
export interface AppServerTurnOutcome {
  readonly response: DriverResponse;
  /** True when the process is still running with its thread loaded (only after a healthy `keepAlive` turn). */
  readonly alive: boolean;
  /** The turn's plan once checked against codex's own approval policy ({@link checkInheritedApprovals}). */
  readonly plan: CodexPolicyPlan;
}

/** The turn a session is serving: where its notifications and server requests go. */
interface ActiveTurn {
  readonly state: AppServerTurnState;
  readonly requests: TurnRequests;
  readonly sink: DriverSink;
  readonly markDone: () => void;
}

/** The server requests of one turn: approvals go to the host, each request is answered once. */
interface TurnRequests {
  handle(message: JsonRpcServerRequest): void;
  /** The next turn of the run is starting: its requests are held until {@link release}. */
  hold(): void;
  /** The turn id is known: requests held until now are handled or declined. */
  release(): void;
  /**
   * The tool calls the host's decision refused so far (`onApproval`, the policy's `auto_deny`, an
   * approval that expired), in the order they were decided.
   */
  readonly denials: readonly PermissionDenial[];
  /**
   * Resolves once every ask the host has decided so far (an approval, an elicitation, the model's
   * questions) is answered to codex (a decision still being asked is not waited for). Never rejects.
   */
  answered(): Promise<void>;
}

/**
 * Tracks one ask of the host for {@link TurnRequests.answered}: `asked` settles with the host's
 * decision, `handled` once codex's answer is on its way (it never rejects).
 */
type Deciding = (asked: Promise<unknown>, handled: Promise<void>) => void;

/**
 * One live `codex app-server` process (docs/protocols.md) and the thread loaded in it.
 * The first turn sends `initialize` / `initialized` and opens the thread (`thread/start`, or
 * `thread/resume` / `thread/fork` for `request.session`); every turn sends `turn/start` with the
 * prompt (and the strict output schema) and turns notifications into events until its
 * `turn/completed`. After a healthy `keepAlive` turn the process stays up with the thread loaded,
 * so the next turn of the thread is only a `turn/start` on the same connection (no second
 * `thread/resume`); otherwise stdin is closed and codex exits. Every server request is answered,
 * also between turns (declined). stdout is read by one pump for the life of the process.
 */
export class AppServerSession implements PooledProcess {
  readonly proc: CliProcess;
  readonly signature: string;
  readonly #config: CodexConfig;
  readonly #cwd: string;
  /** The run's skills, staged for this process; announced right after `initialize`. */
  readonly #skills: StagedCodexSkills | undefined;
  /** The MCP servers this process was launched with (part of its launch signature). */
  readonly #mcpServers: readonly McpServerConfig[] | undefined;
  /** The startup states codex reported for those servers (none without servers). */
  readonly #mcpStartup: McpStartup | undefined;
  readonly #graceMs: number;
  /**
   * What the host answered "for this session" (`acceptForSession`) on this codex session: commands
   * (with their working directory) and files codex then runs or changes again unasked, covered by that answer.
   */
  readonly #sessionGrants = new SessionGrants();
  readonly #rpc: JsonRpcConnection;
  readonly #pump: Promise<void>;
  #readError: unknown;
  /** Whether the last stdout line was a delta the turn read directly (`beforeNextLine`'s `frequent`). */
  #frequent = false;
  /** What {@link #readRun} asked to await before the next line. */
  #wait: Promise<void> | undefined;
  /** The raw text of the line being dispatched (kept as the terminal's exact JSON). */
  #lineText = "";
  #active: ActiveTurn | undefined;
  /** The handshake (`initialize`, `initialized`, the skill roots), written once per process; settles with codex's answers. */
  #initialized: Promise<void> | undefined;
  /** The `userAgent` of codex's answer to `initialize` (`<client name>/<codex version> (<os>; <arch>) ...`), once read. */
  #userAgent: string | undefined;
  /** The thread opened in this process and the reply that opened it. */
  #opened: ThreadOpened | undefined;
  #threadClosed = false;
  /** codex could not read a message the driver sent: the process is not reused. */
  #unreadable = false;
  /** The last turn this process completed healthily (what a reuse must continue from). */
  #lastTurnId: string | undefined;
  /** The loaded thread's running token total as codex last reported it in this process (see `AppServerTurnState.previousTotal`). */
  #threadTotal: TokenUsageBreakdown | undefined;
  /**
   * The thread's rollout as this process left it after a turn it kept alive for: its path and the
   * file's identity (device and inode). codex keeps the file open and writes to it, not to its path.
   */
  #rollout: { readonly path: string; readonly identity: string } | undefined;
  /** Start of the stderr line being assembled (bounded). */
  #stderrLine = "";
  #ended = false;
  #exited = false;
  #closed: Promise<void> | undefined;

  /**
   * Spawns `codex app-server` for `init.request` (its cwd and env) and emits the `process` `spawn`
   * event on `sink`. @throws DriverError `NOT_FOUND` when the executable is missing.
   */
  static async spawn(init: AppServerSpawn, sink: DriverSink): Promise<AppServerSession> {
    const { config, request } = init;
    const cwd = request.cwd ?? config.cwd ?? process.cwd();
    let session: AppServerSession | undefined;
    // A stdio server's missing command, which codex would report only as a closed connection; a
    // required one's refuses the run here.
    const env = codexEnv(config, request.env);
    const commandProblems = await checkStdioServerCommands(request.mcpServers, env, cwd);
    const skills = await stageCodexSkills(request.skills);
    let proc: CliProcess;
    try {
      proc = await init.schedule(() =>
        spawnCli({
          command: init.command,
          args: ["app-server", ...commonArgs(config)],
          cwd,
          env,
          device: DEVICE,
          ...spawnLimits(config),
          // The credentials the run hands codex read [redacted] in its stderr events and result.raw().
          redactRaw: launchSecrets(env, request.mcpServers),
          // stderr goes to the turn being served; between turns it is dropped (`proc.takeOutput()` at turn start).
          onStderr: (text) => session?.emitStderr(text),
        }),
      );
    } catch (error) {
      await skills?.remove();
      throw error;
    }
    // The staged skills live as long as the process (close() removes them too, and waits for it).
    if (skills) void proc.exited.then(() => skills.remove());
    session = new AppServerSession(proc, init.signature, config, cwd, skills, request.mcpServers, commandProblems);
    sink.emit({ type: "process", kind: "spawn", pid: proc.pid });
    return session;
  }

  private constructor(
    proc: CliProcess,
    signature: string,
    config: CodexConfig,
    cwd: string,
    skills: StagedCodexSkills | undefined,
    mcpServers: readonly McpServerConfig[] | undefined,
    commandProblems: ReadonlyMap<string, string>,
  ) {
    this.proc = proc;
    this.#skills = skills;
    this.#mcpServers = mcpServers;
    this.#mcpStartup = mcpServers?.length
      ? new McpStartup(
          mcpServers.map((server) => server.name),
          commandProblems,
        )
      : undefined;
    this.signature = signature;
    this.#config = config;
    this.#cwd = cwd;
    this.#graceMs = graceMs(config);
    this.#rpc = codexRpc(
      proc,
      {
        onNotification: (method, params) => this.#onNotification(method, params),
        onServerRequest: (message) => this.#onServerRequest(message),
      },
      config.replyTimeoutMs,
    );
    void proc.exited.then(() => (this.#exited = true));
    this.#pump = this.#readLines();
  }

  /**
   * Reports stderr text to the turn being served, if any (the turn's raw output keeps it either
   * way), and watches it for codex saying it could not read a message: the requests waiting for a
   * reply then fail with an `INVALID` DriverError at once (codex would never answer them).
   */
  emitStderr(text: string): void {
    this.#active?.sink.emit({ type: "process", kind: "stderr", text });
    const lines = (this.#stderrLine + text).split("\n");
    this.#stderrLine = (lines.pop() ?? "").slice(-4096);
    for (const line of lines) {
      const unreadable = UNREADABLE_REQUEST.exec(plainText(line));
      if (!unreadable) continue;
      this.#unreadable = true;
      this.#rpc.failPending(
        (method) =>
          new DriverError({
            op: method,
            device: DEVICE,
            code: ErrCode.Invalid,
            cause: `codex could not read the request: ${unreadable[0]}`,
          }),
      );
    }
  }

  /** The last turn this process completed healthily, if any. */
  get lastTurnId(): string | undefined {
    return this.#lastTurnId;
  }

  /** OS process id of codex. */
  get pid(): number {
    return this.proc.pid;
  }

  /** Lets the host exit while the process is parked (see `CliProcess.unref`). */
  unref(): void {
    this.proc.unref();
  }

  /** Holds the host again while the process serves a turn. */
  ref(): void {
    this.proc.ref();
  }

  /** Where the thread stands for reuse: {@link lastTurnId}. */
  get version(): string | undefined {
    return this.#lastTurnId;
  }

  /** The thread loaded in this process, once a turn opened it. */
  get threadId(): string | undefined {
    return this.#opened?.thread.id;
  }

  /**
   * True while the process can take another turn of its thread: it is running, its thread is
   * loaded, and the rollout it writes is still the file at the rollout's path (one removed or
   * replaced there, e.g. by a backup restore or a copy, even with the same bytes, would have the
   * turn written into a file no one reads again).
   */
  get usable(): boolean {
    return (
      this.#closed === undefined &&
      !this.#ended &&
      !this.#exited &&
      !this.#threadClosed &&
      !this.#unreadable &&
      this.#opened !== undefined &&
      (this.#rollout === undefined || rolloutIdentity(this.#rollout.path) === this.#rollout.identity)
    );
  }

  /**
   * Pre-warming: sends `initialize` / `initialized` and opens a new thread (`thread/start`) for a
   * future first turn of `request`'s spawn inputs, so that turn only sends `turn/start`.
   *
   * @throws DriverError `DEVICE_DISCONNECTED` when codex exits first; CodexRpcError for an error
   * answer; `signal.reason` when aborted.
   */
  async prewarm(request: DriverRequest, plan: CodexPolicyPlan, signal: AbortSignal): Promise<void> {
    const ready = (async () => {
      // Written right behind the handshake, without waiting for its answer (codex reads its stdin in order).
      const initialized = this.#initialize();
      this.#mcpStartup?.reset();
      const opening = openThread(this.#rpc, { ...request, session: undefined }, this.#config, plan, this.#cwd, {});
      opening.catch(() => undefined); // read below, once the handshake's own failure had its say
      await initialized;
      this.#opened = await opening;
    })();
    await raceAbort(ready, signal);
  }

  /**
   * Makes a process whose run is over ready for another first turn: the finished thread is unloaded
   * (`thread/unsubscribe`: codex keeps nothing of it in this process, its rollout stays on disk), then
   * a new thread is opened for `request`'s spawn inputs as {@link prewarm} does. The finished thread
   * is never continued here: it is no longer this process's thread before the unsubscribe is sent.
   *
   * @throws like {@link prewarm}.
   */
  async rearm(request: DriverRequest, plan: CodexPolicyPlan, signal: AbortSignal): Promise<void> {
    const finished = this.#opened?.thread.id;
    this.#opened = undefined;
    this.#lastTurnId = undefined;
    this.#threadTotal = undefined;
    this.#rollout = undefined;
    if (finished !== undefined) await raceAbort(this.#rpc.request("thread/unsubscribe", { threadId: finished }), signal);
    await this.prewarm(request, plan, signal);
  }

  /**
   * True once no process codex started is running (helpers it runs after a turn end by themselves
   * within `handBackSettleMs`); false when one still runs then, or where that cannot be known (not
   * Linux, or a process without `listDescendants`).
   */
  async #nothingLeftRunning(): Promise<boolean> {
    for (
      const end = Date.now() + (this.#config.handBackSettleMs ?? HAND_BACK_SETTLE_MS);
      ;
      await new Promise((resolve) => setTimeout(resolve, 20))
    ) {
      const live = await this.proc.listDescendants?.();
      if (live === undefined) return false;
      if (live.length === 0) return true;
      if (Date.now() >= end) return false;
    }
  }

  /**
   * Sends the handshake ({@link #initialize}) and waits for codex's answers, nothing else written:
   * the version codex names in its `initialize` answer, read before any thread is opened.
   *
   * @returns the version in the answer's `userAgent` (see {@link userAgentVersion}), or undefined
   * when it names none.
   * @throws DriverError `DEVICE_DISCONNECTED` when codex exits first; CodexRpcError for an error
   * answer; `signal.reason` when aborted.
   */
  async reportedVersion(signal: AbortSignal): Promise<string | undefined> {
    await raceAbort(this.#initialize(), signal);
    return userAgentVersion(this.#userAgent, this.#config.clientName ?? "adaptor");
  }

  /**
   * Writes the handshake the first time (`initialize`, `initialized`, then `skills/extraRoots/set`
   * for the run's skills) all at once, without waiting for an answer in between: codex reads its
   * stdin in order, so the thread request written right after it is served once the handshake is.
   * Resolves when codex answered the handshake; rejects with its first failure.
   */
  #initialize(): Promise<void> {
    this.#initialized ??= (() => {
      const initialize: InitializeParams = {
        clientInfo: { name: this.#config.clientName ?? "adaptor", title: null, version: "0.1.0" },
        capabilities: { experimentalApi: false, requestAttestation: false, optOutNotificationMethods: OPTED_OUT },
      };
      const answers: Promise<unknown>[] = [
        this.#rpc.request("initialize", initialize).then((answer) => {
          const userAgent = (answer as Partial<InitializeResponse> | undefined)?.userAgent;
          this.#userAgent = typeof userAgent === "string" ? userAgent : undefined;
        }),
      ];
      this.#rpc.notify("initialized");
      if (this.#skills) {
        const roots: SkillsExtraRootsSetParams = { extraRoots: [this.#skills.root] };
        answers.push(this.#rpc.request("skills/extraRoots/set", roots));
      }
      return Promise.all(answers).then(() => undefined);
    })();
    return this.#initialized;
  }

  /**
   * Runs one turn; see {@link Driver.run} for the verdict contract. The process is ended unless the
   * turn was healthy and `keepAlive` was asked for. The prompt is written once, in `turn/start`.
   *
   * @throws `signal.reason` (or a `FORCE_KILLED` DriverError carrying it) after a cancel, once the
   * process is gone; DriverError `DRIVER` when codex answered a request with an error.
   */
  async runTurn(turnInit: AppServerTurn): Promise<AppServerTurnOutcome> {
    const { request, sink, signal, plan } = turnInit;
    const proc = this.proc;
    proc.takeOutput(); // drop what came between turns: the turn's raw output starts here
    const data = readCheckpointData(request.session?.data);
    // The turn the budget stop interrupts, once codex named it.
    let running: { threadId: string; turnId: string } | undefined;
    const interruptAtLimit = (): void => {
      if (running) this.#rpc.request("turn/interrupt", running).catch(() => undefined);
    };
    const limit = new TurnLimit(request.budget?.maxTurns, interruptAtLimit);
    // The run's turns: the first, then one more per stop hook's `continueWith` (see stopContinuation).
    const turn = new AppServerTurnState((event) => {
      sink.emit(event);
      limit.observe(event);
    }, this.#config.maxModelRetries ?? MAX_MODEL_RETRIES);
    turn.previousTotal = this.#threadTotal;
    turn.grantedForSession = (item) => this.#sessionGrants.covers(item);
    let markTurnDone: () => void = () => undefined;
    const nextTurnDone = (): Promise<void> =>
      new Promise<void>((resolve) => {
        markTurnDone = resolve;
      });
    let turnDone = nextTurnDone();
    // Done once no further turn starts: after the last turn, or a turn that ended under a cancel.
    let markRunDone: () => void = () => undefined;
    const runDone = new Promise<void>((resolve) => {
      markRunDone = resolve;
    });
    const requests = this.#requestsFor(turn, sink);
    const markDone = (): void => {
      markTurnDone();
      if (signal.aborted || this.#ended) markRunDone();
    };
    this.#active = { state: turn, sink, markDone, requests };
    if (this.#ended) markDone();

    const cancel = new AppServerCancellation(proc, this.#rpc, runDone, this.#graceMs);
    const onAbort = (): void => cancel.start();
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) cancel.start();

    let opened: ThreadOpened | undefined;
    let checked = plan;
    let failure: DriverFailure | undefined;
    let error: unknown;
    let exit: ExitInfo | undefined;
    let alive = false;
    let interruptedByHost = false;
    let interrupted = false;
    let detach: (() => void) | undefined;
    let baseline: ReadonlySet<number> | undefined;
    // Copies of the run's prompt images codex reads (a prompt's, a steered message's): removed once the run ended.
    const files = new RunFiles();
    try {
      const initialized = this.#initialize();
      opened = this.#opened;
      if (!opened) {
        // Written right behind the handshake of a new process, without waiting for its answer.
        this.#mcpStartup?.reset();
        const opening = openThread(this.#rpc, request, this.#config, plan, this.#cwd, data);
        opening.catch(() => undefined); // read below, once the handshake's own failure had its say
        await initialized;
        try {
          opened = this.#opened = await opening;
        } catch (err) {
          failure = refusedSession(request, err, this.#config.idleMs ?? DEFAULT_IDLE_MS);
        }
        // A resumed thread starts from the committed turn: whatever codex recorded after it (a
        // failed, cancelled or uncommitted turn) is dropped first.
        if (opened && request.session && !request.session.fork && data.lastTurnId) {
          await rewindTo(this.#rpc, opened.thread.id, data.lastTurnId, sink);
        }
      } else {
        await initialized;
      }
      if (opened) {
        // Under permission inherit, codex's own approval policy decides whether the sandbox holds:
        // refused here, before the turn starts (the process is ended below).
        checked = withOwnSandbox(checkInheritedApprovals(plan, opened.approvalPolicy, request.policy, "codex"), opened.sandbox);
        // Nor may the turn write in a root of the thread's earlier turns that this run did not give.
        checkWritableRoots(plan, opened.sandbox?.type === "workspaceWrite" ? opened.sandbox.writableRoots : undefined, "codex");
        turn.threadId = opened.thread.id;
        sink.emit(sessionInit({ sessionId: opened.thread.id, model: opened.model, cwd: opened.cwd }));
        // What runs now is not the turn's: only what it starts is ended when it ends (keepAlive).
        await this.#mcpStarted(signal, sink);
        baseline = turnInit.keepAlive ? await descendantBaseline(proc) : undefined;
        const turnParams = (input: UserInput[]): TurnStartParams => ({
          threadId: opened!.thread.id,
          input,
          ...(turnInit.outputSchema ? { outputSchema: turnInit.outputSchema as TurnStartParams["outputSchema"] } : {}),
          // A turn that names no effort keeps the last committed turn's (codex would keep the last one sent, committed or not).
          ...(effortOf(request, data) ? { effort: effortOf(request, data) as TurnStartParams["effort"] } : {}),
          // ask with no sandbox: full access for the turn, set here rather than at thread/start,
          // where codex would also mark the working directory trusted in its config.toml.
          ...(checked.sandboxForAsk ? { sandboxPolicy: { type: "dangerFullAccess" } as const } : {}),
        });
        const addContext = async (text: string): Promise<void> =>
          void (await this.#rpc.request("thread/inject_items", contextItems(opened!.thread.id, text)));
        const input = await promptInput(request, sink, request.prompt, await promptImageFiles(request.images, files), addContext);
        signal.throwIfAborted();
        const started = await requestAnswer(this.#rpc, "turn/start", turnParams(input), turnStarted);
        // Known to the cancellation first: replaying the held events may make the host cancel.
        cancel.turnStarted(opened.thread.id, started.turn.id);
        running = { threadId: opened.thread.id, turnId: started.turn.id };
        const current = running;
        // codex answers turn/start before the turn is active and refuses a request for it until
        // then: a host's request made that early waits for turn/started. False when the turn (or
        // the process) ended first.
        const turnActive = async (): Promise<boolean> => {
          await Promise.race([turn.whenStarted(), turnDone]);
          return turn.started && !turn.completed && !turn.gaveUp;
        };
        detach = sink.attachControl?.({
          interrupt: async () => {
            if (!(await turnActive())) return false;
            interruptedByHost = true;
            // Approvals the host ended as it interrupted reach codex first: a call it was asking
            // about ends declined, not left open by the interrupt.
            await requests.answered();
            try {
              await this.#rpc.request("turn/interrupt", current);
            } catch (error) {
              // The turn ended meanwhile (or the process did): nothing interrupted, its own verdict stands.
              if (isTurnEnded(error) || turn.completed || turn.gaveUp) return false;
              throw turnControlError(error);
            }
            // Taken unless the turn had completed some other way before codex answered.
            return turn.completed === undefined || turn.completed.status === "interrupted";
          },
          send: async (text, images) => {
            if (!(await turnActive())) return false;
            try {
              await this.#rpc.request("turn/steer", {
                threadId: current.threadId,
                expectedTurnId: current.turnId,
                input: await promptInput(request, sink, text, await promptImageFiles(images, files), addContext),
              });
            } catch (error) {
              // Codex had ended the turn before the message came (its turn/completed may still be on
              // the way): not delivered, as after the run's end.
              if (isTurnEnded(error) || turn.completed) return false;
              throw turnControlError(error);
            }
            sink.emit({ type: "notice", kind: "input.accepted", message: "message taken into the running turn", data: { text } });
            return true;
          },
        });
        if (turn.setTurnId(started.turn.id)) markTurnDone();
        requests.release();
        if (signal.aborted) cancel.start();
        // Also done when codex kept retrying a model call it cannot reach (turn.gaveUp): the turn
        // never completes then, so the process is ended below.
        await turnDone;
        // The stop hook may make the agent go on: another turn on the thread, within this run.
        for (let continuations = 0; turn.completed?.status === "completed" && !signal.aborted && this.usable; continuations++) {
          const next = await stopContinuation(request, sink, turn.lastAgentText, continuations);
          if (next === undefined || signal.aborted || !this.usable) break;
          turn.beginNext();
          requests.hold();
          turnDone = nextTurnDone();
          const again = await requestAnswer(
            this.#rpc,
            "turn/start",
            turnParams([{ type: "text", text: next, text_elements: [] }]),
            turnStarted,
          );
          cancel.turnStarted(current.threadId, again.turn.id);
          current.turnId = again.turn.id;
          if (turn.setTurnId(again.turn.id)) markTurnDone();
          requests.release();
          if (signal.aborted) cancel.start();
          await turnDone;
        }
      }
      markRunDone();
      // A turn the host interrupted ends with status interrupted: kept, like a completed one.
      interrupted = interruptedByHost && turn.completed?.status === "interrupted";
      const ended = turn.completed?.status === "completed" || interrupted;
      if (!failure && ended && !signal.aborted) this.#lastTurnId = turn.completed!.id;
      const healthy = !failure && ended && !signal.aborted && this.usable;
      // Handed back only with nothing left to end: what the turn started must not outlive its run.
      const settled = healthy && !turnInit.keepAlive && turnInit.handBack === true && (await this.#nothingLeftRunning());
      // A process kept for the thread's next turn keeps nothing the turn started (a background
      // command): ended now, as the end of the process would end it.
      if (healthy && turnInit.keepAlive) {
        await endTurnBackground(proc, baseline, sink, {
          settleMs: this.#config.handBackSettleMs ?? HAND_BACK_SETTLE_MS,
          graceMs: this.#graceMs,
        });
      }
      // Checked again after that wait: a cancel or the process's end meanwhile ends the run as usual.
      alive = healthy && (turnInit.keepAlive || settled) && !signal.aborted && this.usable;
      const path = alive && turnInit.keepAlive ? this.#opened?.thread.path : undefined;
      const identity = path ? rolloutIdentity(path) : undefined;
      this.#rollout = path && identity ? { path, identity } : undefined;
      if (!alive) {
        proc.closeStdin();
        exit = await exitOrTerminate(proc, this.#graceMs);
        await this.#pump;
      }
    } catch (err) {
      error = err;
    } finally {
      markRunDone();
      detach?.();
      signal.removeEventListener("abort", onAbort);
      await cancel.settled();
      await files.remove();
      this.#active = undefined;
      if (!alive) await this.close();
    }
    const exitInfo = alive ? undefined : (exit ?? (await proc.exited));
    if (signal.aborted) {
      // What ran before the stop: the agent's text, the usage and number of the model calls so far, the
      // calls refused so far, the transcript.
      const usage = turn.usage();
      sink.partial?.({
        text: turn.lastAgentText ?? "",
        ...(opened?.model ? { model: opened.model } : {}),
        ...(opened?.modelProvider ? { provider: opened.modelProvider } : {}),
        ...(usage ? { usage } : {}),
        numTurns: turn.responses,
        permissionDenials: [...requests.denials],
        transcript: turn.transcript,
      });
      throw exitInfo?.forceKilled ? forceKilledError(DEVICE, signal.reason) : signal.reason;
    }
    if (error !== undefined && !isDisconnect(error)) {
      if (error instanceof CodexRpcError) throw new DriverError({ op: error.method, device: DEVICE, code: ErrCode.Driver, cause: error });
      throw error;
    }
    if (this.#readError !== undefined) throw this.#readError;

    const completed = turn.completed;
    // Read once the process ended: its stderr holds the cause of the last retry by then.
    if (turn.gaveUp) failure ??= modelUnreachable(turn.gaveUp, retryCause(proc.stderrTail()));
    // Stopped at the turn budget: the interrupt is the SDK's, the verdict the budget's.
    if (limit.reached && !interruptedByHost) failure ??= limit.failure();
    if (!interrupted)
      failure ??= classifyCodexTurn({
        status: completed?.status,
        ...(completed?.error ? { errorMessage: completed.error.message, codexErrorInfo: completed.error.codexErrorInfo } : {}),
        exitCode: exitInfo ? exitInfo.code : null,
        exitSignal: exitInfo ? exitInfo.signal : null,
        ...(exitInfo?.terminated === true ? { endedBySdk: true } : {}),
        stderrTail: proc.stderrTail(),
      });
    const text = turn.lastAgentText ?? "";
    const structured = !failure && !interrupted && turnInit.outputSchema ? structuredAnswer(text, request.outputSchema, sink) : undefined;
    // An interrupted turn counts the model responses it completed: zeros when none did (as Claude Code reports it).
    const usage = turn.usage() ?? (interrupted ? NO_TOKENS : undefined);
    if (turn.dropped > 0) {
      sink.emit({ type: "notice", kind: "runtime", message: "events of another turn ignored", data: { count: turn.dropped } });
    }
    reportLateOutput(sink, turn.late);
    const checkpointData: CodexCheckpointData | undefined = turn.completed
      ? await this.#checkpointData(turn.completed.id, request, data, opened)
      : undefined;
    const response: DriverResponse = {
      text,
      ...(interrupted ? { interrupted: true } : {}),
      ...(structured !== undefined ? { structured } : {}),
      ...(opened?.model ? { model: opened.model } : {}),
      ...(opened?.modelProvider ? { provider: opened.modelProvider } : {}),
      ...(usage ? { usage } : {}),
      numTurns: turn.responses,
      permissionDenials: [...requests.denials],
      transcript: turn.transcript,
      raw: rawStreams(
        await proc.takeSettledOutput(),
        turn.completedJson ? { event: "turn/completed", json: turn.completedJson } : undefined,
      ),
      ...(!failure && opened ? { checkpoint: { resumeId: opened.thread.id, ...(checkpointData ? { data: checkpointData } : {}) } } : {}),
      ...(failure ? { failure } : {}),
      ...(exitInfo ? { exit: responseExit(exitInfo) } : {}),
    };
    return { response, alive, plan: checked };
  }

  /**
   * The checkpoint data of a completed turn `lastTurnId`: the model and effort it ran with (as the
   * thread's turns named them), and the
   * fork lineage (inherited from the thread's previous checkpoint `data`; for a fork's first turn,
   * the parent's lineage and rollouts through the fork point, read from this host's `CODEX_HOME`).
   */
  async #checkpointData(
    lastTurnId: string,
    request: DriverRequest,
    data: CodexCheckpointData,
    opened: ThreadOpened | undefined,
  ): Promise<CodexCheckpointData> {
    // Only a model a turn named is kept: a turn that names none still follows the driver's `model`.
    const model = request.model ?? data.model;
    const effort = effortOf(request, data);
    const session = request.session;
    let lineage = data.lineage;
    if (session?.fork && opened) {
      lineage = await forkLineage(codexHomeOf(this.#config, request.env), opened.thread.id, session.resumeId, data).catch(() => undefined);
    }
    // The roots codex gave the thread, which it keeps when it resumes it (under another sandbox: the earlier turn's).
    const writableRoots = opened?.sandbox?.type === "workspaceWrite" ? opened.sandbox.writableRoots : data.writableRoots;
    return {
      lastTurnId,
      ...(model ? { model } : {}),
      ...(effort ? { effort } : {}),
      ...(lineage ? { lineage } : {}),
      ...(writableRoots?.length ? { writableRoots: [...writableRoots] } : {}),
    };
  }

  /**
   * Ends the process and waits until it is reaped. Idle (parked), it gets EOF on stdin first, the
   * way codex ends after every turn, and is terminated only when it does not exit within the
   * grace; serving a turn, it is terminated at once. The skills staged for it are removed.
   * Idempotent; never rejects.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      // A parked or pre-warmed process is unref'd: whoever awaits its end is held until it was reaped.
      this.proc.ref();
      if (!this.#active && !this.#exited) {
        this.proc.closeStdin();
        await exitOrTerminate(this.proc, this.#graceMs);
      }
      await this.proc.close();
      await this.#pump;
      await this.#skills?.remove();
    })();
    return this.#closed;
  }

  async #readLines(): Promise<void> {
    const batches = this.proc.textBatches()[Symbol.asyncIterator]();
    let ended = false;
    try {
      // stdout is taken a chunk at a time; between two lines of a chunk the host's loop takes its
      // events in step (beforeNextLine) while no new stdout is read in between. A line is a slice
      // of the chunk it came in: the batch and what its lines left behind are let go before the
      // wait for the next, which a turn waiting for an approval spends in this frame (a suspended
      // async function keeps its registers alive, dead or not).
      for (;;) {
        let read: IteratorResult<readonly string[]> | undefined = await batches.next();
        if (read.done === true) {
          ended = true;
          break;
        }
        let batch: readonly string[] | undefined = read.value;
        read = undefined;
        if (this.#frequent) {
          const wait = beforeNextLine(this.#active?.sink, true);
          if (wait !== undefined) await wait;
        }
        let next = 0;
        while (next < batch.length) {
          next = this.#readRun(batch, next);
          if (next < batch.length) await this.#wait;
        }
        batch = undefined;
        this.#wait = undefined;
        this.#active?.state.releaseLines();
      }
    } catch (err) {
      this.#readError = err;
      if (!ended) await batches.return?.().catch(() => undefined);
    } finally {
      this.#ended = true;
      this.#rpc.close("codex app-server exited");
      this.#active?.markDone();
    }
  }

  /**
   * Handles `batch[from]` and the lines after it until one asks to wait before the next
   * (`beforeNextLine`, left in {@link #wait}); returns the index of the next line. A plain loop
   * beside the async one, which only awaits: the same loop inside the async function deopted early
   * in a long turn and was recompiled, with everything it inlines, more than once.
   */
  #readRun(batch: readonly string[], from: number): number {
    let i = from;
    // The turn being served changes only when a line is dispatched.
    let active = this.#active;
    for (;;) {
      // A delta of the turn being served goes straight to it, without a parsed value.
      const text = batch[i++]!;
      const frequent = active !== undefined && active.state.acceptLine(text);
      this.#frequent = frequent;
      if (!frequent) {
        this.#dispatch(text);
        active = this.#active;
      }
      if (i === batch.length) return i;
      const wait = beforeNextLine(active?.sink, frequent);
      if (wait !== undefined) {
        this.#wait = wait;
        return i;
      }
    }
  }

  /** One stdout line through JSON-RPC; a line that is not JSON, or not JSON-RPC, is reported as stdout. */
  #dispatch(text: string): void {
    let value: unknown;
    try {
      value = parseAppServerLine(text);
    } catch {
      this.#active?.sink.emit({ type: "process", kind: "stdout", text });
      return;
    }
    this.#lineText = text;
    try {
      if (!this.#rpc.accept(value)) this.#active?.sink.emit({ type: "process", kind: "stdout", text });
    } finally {
      // Only the dispatch reads it: not kept past the line (a slice of its stdout chunk).
      this.#lineText = "";
    }
  }

  /**
   * Waits until codex reported each of the run's MCP servers `ready`, `failed` or `cancelled` (at
   * most `replyTimeoutMs`; a cancel or codex's exit ends the wait too), then reports their states
   * in a `notice` of kind `mcp.status`. Without MCP servers it returns at once; on a thread whose
   * servers already settled (a reused process) it only reports.
   */
  async #mcpStarted(signal: AbortSignal, sink: DriverSink): Promise<void> {
    const startup = this.#mcpStartup;
    if (!startup) return;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = Promise.race([
      this.proc.exited,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#config.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS);
        timer.unref();
        onAbort = resolve;
        if (signal.aborted) resolve();
        else signal.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
    try {
      await startup.settled(stop);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
    sink.emit({ type: "notice", kind: "mcp.status", message: "MCP servers at turn start", data: { servers: startup.statuses() } });
  }

  #onNotification(method: string, params: unknown): void {
    this.#mcpStartup?.accept(method, params);
    if (method === "thread/closed" && (params as { threadId?: unknown } | undefined)?.threadId === this.threadId) {
      this.#threadClosed = true; // codex unloaded the thread: this process cannot continue it
    }
    const active = this.#active;
    if (active?.state.accept(method, params, this.#lineText)) active.markDone();
    if (method === "thread/tokenUsage/updated") {
      const update = params as Partial<ThreadTokenUsageUpdatedNotification> | undefined;
      if (update?.threadId === this.threadId && update?.tokenUsage?.total) this.#threadTotal = update.tokenUsage.total;
    }
  }

  #onServerRequest(message: JsonRpcServerRequest): void {
    if (this.#active) {
      this.#active.requests.handle(message);
      return;
    }
    // No turn is running (the process is parked): nobody can decide, so decline.
    if (APPROVAL_METHODS.includes(message.method) || message.method === MCP_ELICITATION_METHOD || message.method === USER_INPUT_METHOD) {
      void this.#rpc.respond(message.id, declineAnswer(message.method, "no turn is running"));
    } else {
      void this.#rpc.respondError(message.id, JSON_RPC_METHOD_NOT_FOUND, `the adaptor codex driver does not handle ${message.method}`);
    }
  }

  /**
   * Carries a host's deny reason to the model: codex's v2 approval answer is a bare `decline` (the
   * model then reads only "rejected by user"), so before answering, the reason goes into the
   * thread's model-visible history as a developer message (`thread/inject_items`); codex places it
   * after the declined call's output in the next model request. Legacy requests carry the reason in
   * their answer. A failure here never blocks the decline: it is recorded in a `notice`.
   */
  async #tellDenyReason(message: JsonRpcServerRequest, ask: ApprovalAsk, reason: string, sink: DriverSink): Promise<void> {
    const threadId = this.threadId;
    const relayed =
      V2_APPROVAL_METHODS.includes(message.method) || message.method === MCP_ELICITATION_METHOD || message.method === USER_INPUT_METHOD;
    if (!relayed || !threadId) return;
    const text = `The host denied ${ask.title}: ${reason}`;
    const params: ThreadInjectItemsParams = {
      threadId,
      items: [{ type: "message", role: "developer", content: [{ type: "input_text", text }] }],
    };
    try {
      await this.#rpc.request("thread/inject_items", params);
    } catch (error) {
      sink.emit({
        type: "notice",
        kind: "runtime",
        message: "the deny reason could not be passed to the model",
        data: { id: message.id, error: error instanceof Error ? error.message : String(error) },
      });
    }
  }

  /**
   * Answers codex's `mcpServer/elicitation/request` of the running turn: a trusted server's tool
   * (the SDK's host tools, approved on the host's own path) is accepted at once; codex's ask before
   * another MCP server's tool call goes to the host as a `permission` ask (approve → `accept`, any
   * other decision → `decline`, which codex reports to the model as "user rejected MCP tool call";
   * a deny's reason reaches the model as a developer message, see {@link #tellDenyReason});
   * an MCP server's own elicitation (a form or a URL) goes to the host as an `elicitation` ask and
   * is answered `{ action, content }` (the SDK checked a form's content against its schema). The
   * tool-call ask names the call codex announced for that tool (`openCall`), as the elicitation
   * names none.
   */
  #elicitation(
    message: JsonRpcServerRequest,
    answer: (id: string | number, send: () => Promise<void>) => void,
    sink: DriverSink,
    denied: (ask: ApprovalAsk) => void,
    openCall: (toolName: string) => string | undefined,
    deciding: Deciding,
  ): void {
    const rpc = this.#rpc;
    const respond = (action: "accept" | "decline"): void => answer(message.id, () => rpc.respond(message.id, elicitationAnswer(action)));
    const decided = mcpElicitation(message as ServerRequest, this.#mcpServers);
    if ("answer" in decided) {
      respond(decided.answer);
      return;
    }
    if ("elicitation" in decided) {
      const { elicitation } = decided;
      const asked = sink.requestApproval(elicitationAsk(elicitation));
      deciding(
        asked,
        asked.then(
          (decision) => answer(message.id, () => rpc.respond(message.id, elicitationAnswer(elicitationResult(elicitation, decision)))),
          () => respond("decline"),
        ),
      );
      return;
    }
    // The elicitation names no call id: the ask belongs to the call codex announced for that tool,
    // so the host's approval-request and the SDK's check of unasked calls name it.
    const callId = decided.ask.toolCallId ?? openCall(decided.ask.toolName ?? "");
    const ask = callId !== undefined ? { ...decided.ask, toolCallId: callId } : decided.ask;
    const asked = sink.requestApproval(ask);
    deciding(
      asked,
      asked.then(
        async (decision) => {
          const effective = effectiveDecision(decision);
          if (effective.outcome === "approve") return respond("accept");
          if (effective.outcome === "deny") await this.#tellDenyReason(message, ask, effective.reason, sink);
          denied(ask);
          respond("decline");
        },
        () => respond("decline"),
      ),
    );
  }

  /**
   * The server-request handler of one turn. Approvals of this turn go to the host; each request is
   * answered once. Requests that name a turn are held until this turn's id is known; one of another
   * turn, or one that arrives after this turn's `turn/completed`, is declined to codex at once and
   * recorded in a `notice` (the host is not asked).
   */
  #requestsFor(turn: AppServerTurnState, sink: DriverSink): TurnRequests {
    const rpc = this.#rpc;
    const answered = new Set<string | number>();
    // The answers being sent to codex.
    const sending = new Set<Promise<void>>();
    let held: JsonRpcServerRequest[] | undefined = [];
    const answer = (id: string | number, send: () => Promise<void>): void => {
      if (answered.has(id)) return;
      answered.add(id);
      const sent = send().catch(() => undefined);
      sending.add(sent);
      void sent.finally(() => sending.delete(sent));
    };
    // Asks of the host (approvals, elicitations, questions) not yet answered to codex; `decided`
    // once the host's decision came.
    const pending = new Set<{ readonly handled: Promise<void>; decided: boolean }>();
    const deciding: Deciding = (asked, handled) => {
      const entry = { handled, decided: false };
      pending.add(entry);
      const decided = (): void => void (entry.decided = true);
      asked.then(decided, decided);
      void handled.finally(() => pending.delete(entry));
    };
    const decline = (message: JsonRpcServerRequest, reason = "declined"): void =>
      answer(message.id, () => rpc.respond(message.id, declineAnswer(message.method, reason)));
    const denials: PermissionDenial[] = [];
    // An MCP tool call's ask names no call id: the call codex announced for that tool, if it did.
    const denied = (ask: ApprovalAsk): void => {
      const toolName = ask.toolName ?? "";
      denials.push({ toolName, toolCallId: ask.toolCallId ?? turn.openCall(toolName) ?? "", input: ask.input });
    };
    const handle = (message: JsonRpcServerRequest): void => {
      if (!APPROVAL_METHODS.includes(message.method) && message.method !== MCP_ELICITATION_METHOD && message.method !== USER_INPUT_METHOD) {
        sink.emit({ type: "notice", kind: "runtime", message: `unsupported server request ${message.method}`, data: { id: message.id } });
        answer(message.id, () =>
          rpc.respondError(message.id, JSON_RPC_METHOD_NOT_FOUND, `the adaptor codex driver does not handle ${message.method}`),
        );
        return;
      }
      const requestTurn = turnIdOf(message.params);
      if (requestTurn !== undefined && turn.turnId === undefined && held) {
        held.push(message);
        return;
      }
      const late =
        turn.completed !== undefined
          ? "after the turn ended"
          : requestTurn !== undefined && requestTurn !== turn.turnId
            ? "of another turn"
            : undefined;
      if (late) {
        sink.emit({
          type: "notice",
          kind: "runtime",
          message: `approval request ${late} declined`,
          data: { id: message.id, method: message.method, ...(requestTurn ? { turnId: requestTurn } : {}) },
        });
        decline(message, `approval request ${late}`);
        return;
      }
      if (message.method === MCP_ELICITATION_METHOD) {
        this.#elicitation(message, answer, sink, denied, (toolName) => turn.openCall(toolName), deciding);
        return;
      }
      if (message.method === USER_INPUT_METHOD) {
        // The model's questions, one `question` ask each, in order; a deny stops the asking and its
        // reason reaches the model as a developer message.
        const asked = askUserInput(message.params, (ask) => sink.requestApproval(ask));
        deciding(
          asked,
          asked.then(
            async ({ answer: result, denied: stop }) => {
              if (stop) await this.#tellDenyReason(message, stop.ask, stop.reason, sink);
              answer(message.id, () => rpc.respond(message.id, result));
            },
            () => decline(message),
          ),
        );
        return;
      }
      try {
        const ask = approvalAsk(message as ServerRequest, (id) => turn.item(id));
        if (!ask) {
          decline(message);
          return;
        }
        if (ask.toolCallId !== undefined) turn.askedCalls.add(ask.toolCallId);
        const asked = sink.requestApproval(ask);
        const handled = asked
          .then(
            async (decision) => {
              const effective = effectiveDecision(decision);
              if (effective.outcome === "deny") await this.#tellDenyReason(message, ask, effective.reason, sink);
              const result = approvalAnswer(message.method, effective);
              if (refusesCall(result)) denied(ask);
              else if (grantsForSession(result)) this.#sessionGrants.grant(ask.input);
              return result;
            },
            () => approvalAnswer(message.method, { outcome: "deny", reason: "approval failed" }),
          )
          .then(
            (result) => answer(message.id, () => rpc.respond(message.id, result)),
            () => decline(message),
          );
        deciding(asked, handled);
      } catch {
        decline(message);
      }
    };
    return {
      handle,
      denials,
      async answered() {
        // Decisions the host made before this call reach their entries within the microtasks it runs first.
        await new Promise<void>((resolve) => setImmediate(resolve));
        await Promise.all([...pending].filter((entry) => entry.decided).map((entry) => entry.handled));
        await Promise.all([...sending]);
      },
      hold() {
        held ??= [];
      },
      release() {
        const pending = held ?? [];
        held = undefined;
        for (const message of pending) handle(message);
      },
    };
  }
}

/** The answer that declines server request `method` (an approval, an MCP elicitation, or the model's questions: none answered). */
function declineAnswer(method: string, reason: string): unknown {
  if (method === USER_INPUT_METHOD) return { answers: {} } satisfies UserInputAnswer;
  return method === MCP_ELICITATION_METHOD ? elicitationAnswer("decline") : approvalAnswer(method, { outcome: "deny", reason });
}

/** The effort of a turn: its own, else the last committed turn's (`data`). */
function effortOf(request: DriverRequest, data: CodexCheckpointData): string | undefined {
  return request.effort ?? data.effort;
}

/** A disconnect (codex gone before answering) is classified from the exit, not thrown; a required MCP server's is thrown. */
function isDisconnect(err: unknown): boolean {
  return err instanceof DriverError && err.code === ErrCode.DeviceDisconnected && err.op !== MCP_CONNECT_OP;
}

/**
 * Why codex refused to open `request.session`: no such thread → `resume_rejected`; another process
 * writing to it → `session_busy`, whose `details.holder` names it and `details.retryAfterMs` says
 * when it lets go at the latest, assuming it parks as this driver does (`idleMs`: a parked
 * app-server keeps the thread until then). Anything else (or any error of a fresh `thread/start`)
 * is thrown: an infrastructure failure, never a reason to start over.
 */
function refusedSession(request: DriverRequest, err: unknown, idleMs: number): DriverFailure {
  // A required MCP server that did not start fails the run (codex refused to open the thread).
  const mcp = err instanceof CodexRpcError ? requiredMcpFailure(err.message, request.mcpServers) : undefined;
  if (mcp) throw mcp;
  const session = request.session;
  if (!session || !(err instanceof CodexRpcError)) throw err;
  const refusal = resumeRefusal(err.message);
  if (refusal === "other") throw err;
  return {
    reason: refusal === "missing" ? "resume_rejected" : "session_busy",
    message: err.message,
    details: {
      resumeId: session.resumeId,
      fork: session.fork === true,
      code: err.code,
      // A fork whose parent's history this host lacks: starting fresh would drop it silently.
      ...(lineageGap(err.message) ? { historyIncomplete: true } : {}),
      ...(refusal === "busy" ? { holder: "another codex process", retryAfterMs: idleMs } : {}),
    },
    cause: err,
  };
}

/**
 * Drops the turns codex recorded after `lastTurnId` (newest first in `thread/turns/list`) with
 * `thread/revert`, and says so in a `notice`. When `lastTurnId` is not in the thread at all, nothing
 * is dropped and a `warning` notice says so.
 */
async function rewindTo(rpc: JsonRpcConnection, threadId: string, lastTurnId: string, sink: DriverSink): Promise<void> {
  const newer: string[] = [];
  let found = false;
  let cursor: string | null = null;
  do {
    const params: ThreadTurnsListParams = { threadId, limit: TURN_PAGE, sortDirection: "desc", itemsView: "notLoaded", cursor };
    const page = await requestAnswer(rpc, "thread/turns/list", params, turnsPage);
    for (const listed of page.data) {
      if (listed.id === lastTurnId) {
        found = true;
        break;
      }
      newer.push(listed.id);
    }
    cursor = page.nextCursor;
  } while (!found && cursor);
  if (!found) {
    sink.emit({
      type: "notice",
      kind: "warning",
      message: "the committed turn is not in codex's thread; nothing dropped",
      data: { threadId, lastTurnId },
    });
    return;
  }
  const oldest = newer.at(-1);
  if (oldest === undefined) return;
  await rpc.request("thread/revert", { threadId, beforeTurnId: oldest } satisfies ThreadRevertParams);
  sink.emit({ type: "notice", kind: "lifecycle", message: "uncommitted turns dropped", data: { threadId, turnIds: newer.reverse() } });
}

async function openThread(
  rpc: JsonRpcConnection,
  request: DriverRequest,
  config: CodexConfig,
  plan: CodexPolicyPlan,
  cwd: string,
  data: CodexCheckpointData,
): Promise<ThreadOpened> {
  // A turn that names no model keeps the last committed turn's (a fork: its parent's at the fork
  // point); codex alone would take the last one sent (committed or not), and a fork its default.
  const model = request.model ?? data.model ?? config.model;
  // The driver's pin of the workspace-write roots: the run's additionalDirectories, else none (the
  // host's own value comes with its configOverrides, `-c` at launch). A resumed or forked thread
  // keeps the roots of its earlier turns too (checkWritableRoots, before the turn).
  const pinnedRoots = Array.isArray(plan.writableRoots) && !plan.hostWritableRoots ? plan.writableRoots : undefined;
  // The run's MCP servers go in the thread's config (stdin): their env and headers never reach argv.
  // Under ask / auto_deny (approval policy untrusted) codex asks before every call of a server's tool,
  // whatever the server's annotations say; under approval policy never (auto_approve) it runs them
  // unasked, where it would otherwise refuse every call it may not ask about.
  const toolsApproval = plan.approvalPolicy === "untrusted" ? "prompt" : plan.approvalPolicy === "never" ? "approve" : undefined;
  const mcpServers = request.mcpServers?.length
    ? { mcp_servers: codexMcpServers(request.mcpServers, codexEnv(config, request.env), toolsApproval) }
    : {};
  const session = request.session;
  // Resumed or forked, codex 0.171.0 restores the approval policy and sandbox the thread's last turn
  // ran under (an ask turn's untrusted and full access, say) rather than what a new thread gets:
  // what the run leaves to codex is sent as codex would give it to a new thread.
  const own = session && (plan.approvalPolicy === undefined || plan.sandbox === undefined) ? await codexOwnSettings(rpc, cwd) : undefined;
  // Opened with a sandbox that lets it write, codex would mark an untrusted working directory
  // trusted in the user's config.toml for good: the trust that config already holds goes along.
  const sandbox = plan.sandboxForAsk ? undefined : (plan.sandbox ?? own?.sandbox);
  const trust =
    sandbox === "workspace-write" || sandbox === "danger-full-access"
      ? await projectTrustPin(config, codexHomeOf(config, request.env), cwd)
      : undefined;
  const approvalPolicy = plan.approvalPolicy ?? trust?.approvalPolicy ?? own?.approvalPolicy;
  const threadConfig = {
    ...(plan.webSearch ? { web_search: plan.webSearch } : {}),
    ...(pinnedRoots ? { [WRITABLE_ROOTS_KEY]: [...pinnedRoots] } : {}),
    ...(trust ? { projects: trust.projects } : {}),
    ...mcpServers,
    // Under question `ask` the model may call request_user_input outside codex's plan mode too.
    ...(request.policy?.approvals?.question === "ask" ? { [USER_INPUT_FEATURE]: true } : {}),
  };
  const common = {
    cwd,
    ...(model ? { model } : {}),
    ...(approvalPolicy ? { approvalPolicy } : {}),
    // The sandbox ask runs in when the policy sets none goes with each turn/start instead (see there).
    ...(sandbox ? { sandbox } : {}),
    ...(Object.keys(threadConfig).length ? { config: threadConfig as ThreadStartParams["config"] } : {}),
    // The run's system prompt: base instructions replace codex's own, developer instructions follow them.
    ...(request.systemPrompt?.mode === "replace" ? { baseInstructions: request.systemPrompt.text } : {}),
    ...(request.systemPrompt?.mode === "append" ? { developerInstructions: request.systemPrompt.text } : {}),
  };
  // What codex applied is checked against what was sent: the turn's report says the latter.
  const sent = { approvalPolicy, sandbox };
  if (!session)
    return appliedAsSent("thread/start", await requestAnswer(rpc, "thread/start", common satisfies ThreadStartParams, threadOpened), sent);
  if (session.fork) {
    // A fork copies the thread only through its committed turn.
    const forked = await requestAnswer(
      rpc,
      "thread/fork",
      {
        threadId: session.resumeId,
        excludeTurns: true,
        ...(data.lastTurnId ? { lastTurnId: data.lastTurnId } : {}),
        ...common,
      } satisfies ThreadForkParams,
      threadOpened,
    );
    return appliedAsSent("thread/fork", forked, sent);
  }
  const resumed = await requestAnswer(
    rpc,
    "thread/resume",
    { threadId: session.resumeId, excludeTurns: true, ...common } satisfies ThreadResumeParams,
    threadOpened,
  );
  return appliedAsSent("thread/resume", resumed, sent);
}

/**
 * The identity (device and inode) of the file at `path`, not following a symbolic link;
 * `undefined` when there is none. Synchronous: one `lstat`, asked when a turn looks for a process.
 */
function rolloutIdentity(path: string): string | undefined {
  try {
    const stat = lstatSync(path, { throwIfNoEntry: false, bigint: true });
    return stat ? `${stat.dev}:${stat.ino}` : undefined;
  } catch {
    return undefined;
  }
}
