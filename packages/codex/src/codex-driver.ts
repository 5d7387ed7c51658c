import type { Driver, DriverDescriptor, DriverRequest, DriverResponse, DriverSink, PrewarmRequest, SessionTransfer } from "@adaptor/driver";
import { WarmPool, type CliProcess } from "@adaptor/driver/process";
import PQueue from "p-queue";
import { AppServerSession } from "./app-server/app-server-session.js";
import { defaultCodexCommand } from "./command.js";
import { validateCodexConfig, type CodexConfig } from "./config.js";
import { CODEX_DESCRIPTOR, CODEX_EXEC_DESCRIPTOR } from "./descriptor.js";
import { runExec } from "./exec/exec-run.js";
import { toStrictOutputSchema } from "./output-schema/strict-output-schema.js";
import { planPolicy, type CodexPolicyPlan } from "./policy.js";
import { launchSignature } from "./session/launch-signature.js";
import { readCheckpointData } from "./session/checkpoint-data.js";
import { DEFAULT_IDLE_MS, SessionPool } from "./session/session-pool.js";
import { codexSessionTransfer } from "./session-state/codex-session-transfer.js";

/** Where a pre-warmed process's events go before a run takes it: nowhere. */
const NO_SINK: DriverSink = {
  emit: () => undefined,
  requestApproval: () => Promise.resolve({ outcome: "deny", reason: "no run is being served" }),
};

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
  /** exec processes and app-server sessions serving a turn right now. */
  readonly #live = new Set<{ close(): Promise<void> }>();
  readonly #pool: SessionPool;
  readonly #warm: WarmPool<AppServerSession>;
  readonly #spawns: PQueue;
  /** Why the config given to the constructor was refused, if it was. */
  readonly #invalid: unknown;
  /** Exports and imports thread rollouts, so a thread continues on another host (see `codexSessionTransfer`). */
  readonly sessions: SessionTransfer;

  constructor(config: CodexConfig = {}) {
    // An invalid config is reported by validateConfig() before any run, not thrown from here.
    let checked: CodexConfig = Object.freeze({});
    try {
      checked = validateCodexConfig(config);
    } catch (error) {
      this.#invalid = error;
    }
    this.config = checked;
    this.descriptor = checked.transport === "exec" ? CODEX_EXEC_DESCRIPTOR : CODEX_DESCRIPTOR;
    this.#pool = new SessionPool(checked.idleMs);
    this.#warm = new WarmPool<AppServerSession>(checked.idleMs ?? DEFAULT_IDLE_MS, (session) => session.warm);
    this.#spawns = new PQueue({ concurrency: checked.maxConcurrentSpawns ?? 4 });
    this.sessions = codexSessionTransfer(checked, (threadId) => this.#pool.evict(threadId));
  }

  /** @throws InvalidDriverConfigError (see {@link validateCodexConfig}). */
  validateConfig(): void {
    if (this.#invalid !== undefined) throw this.#invalid;
    validateCodexConfig(this.config);
  }

  /** Number of live app-server processes parked for reuse. */
  get parkedProcesses(): number {
    return this.#pool.size;
  }

  /**
   * Runs one turn; see {@link Driver.run} for the verdict contract. Before anything is launched it
   * refuses what the descriptor lacks (policy, approval modes) and output schemas strict mode cannot
   * express.
   *
   * @throws InvalidDriverConfigError, InvalidPolicyError, PolicyCapabilityUnsupportedError,
   * HumanDecisionModeUnsupportedError, InvalidOutputSchemaError before launch; DriverError
   * `NOT_FOUND` when the executable is missing; `signal.reason` (or a `FORCE_KILLED` DriverError
   * carrying it) after a cancel, once the process is gone.
   */
  async run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    signal.throwIfAborted();
    this.validateConfig();
    const plan = planPolicy(request.policy, this.descriptor);
    const outputSchema = request.outputSchema ? toStrictOutputSchema(request.outputSchema) : undefined;
    const command = this.config.command ?? defaultCodexCommand();
    if (this.config.transport !== "exec") return this.#runAppServer(command, request, sink, signal, plan, outputSchema);
    return runExec({
      command,
      config: this.config,
      request,
      sink,
      signal,
      plan,
      outputSchema,
      track: (proc: CliProcess) => {
        this.#live.add(proc);
        return () => void this.#live.delete(proc);
      },
    });
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
    return this.#warm.size;
  }

  /**
   * Starts one `codex app-server` process for a future first turn launched from `request`'s inputs
   * and resolves `true` once it answered `initialize` and opened a new thread for it. A run of a
   * fresh thread (no `session`) with the same launch signature takes it instead of spawning (a
   * `notice` `process reused` with `prewarmed: true` says so) and only starts its turn; a run with any other config, cwd, env,
   * model, policy, MCP servers or output schema never does. An unused process ends after `idleMs`
   * (default 5 minutes) and on {@link close}. Transport `exec` cannot be pre-warmed: resolves
   * `false`, nothing started.
   *
   * @throws InvalidDriverConfigError, InvalidPolicyError, PolicyCapabilityUnsupportedError before
   * launch; DriverError `NOT_FOUND` for a missing executable; DriverError `DEVICE_DISCONNECTED`
   * when codex exits before it is ready; `signal.reason` when aborted (the process is ended).
   */
  async prewarm(request: PrewarmRequest, signal: AbortSignal = new AbortController().signal): Promise<boolean> {
    signal.throwIfAborted();
    this.validateConfig();
    if (this.config.transport === "exec") return false;
    const plan = planPolicy(request.policy, this.descriptor);
    if (request.outputSchema) toStrictOutputSchema(request.outputSchema);
    const command = this.config.command ?? defaultCodexCommand();
    const first: DriverRequest = { ...request, runId: "prewarm", prompt: "" };
    const signature = launchSignature(command, this.config, first);
    const session = await AppServerSession.spawn(
      { command, config: this.config, request: first, signature, schedule: (spawn) => this.#spawns.add(spawn) },
      NO_SINK,
    );
    this.#live.add(session); // close() during the handshake ends it
    try {
      await session.prewarm(first, plan, signal);
    } catch (error) {
      await session.close();
      throw error;
    } finally {
      this.#live.delete(session);
    }
    if (!session.warm) {
      await session.close();
      throw signal.reason ?? new Error("codex app-server ended before it was ready");
    }
    this.#warm.add(signature, session);
    return true;
  }

  /** Ends every live, parked and pre-warmed process of this driver. Idempotent. */
  async close(): Promise<void> {
    await Promise.all([...this.#live].map((live) => live.close()));
    await Promise.all([this.#pool.close(), this.#warm.close()]);
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
  ): Promise<DriverResponse> {
    const signature = launchSignature(command, this.config, request);
    const reusable = request.reuseProcess === true && !request.session?.fork;
    let session: AppServerSession | undefined;
    if (request.session && reusable) {
      session = await this.#pool.take(request.session.resumeId, signature, readCheckpointData(request.session.data).lastTurnId);
    }
    else if (request.session && !request.session.fork) await this.#pool.evict(request.session.resumeId);
    if (session) sink.emit({ type: "notice", kind: "lifecycle", message: "process reused", data: { pid: session.proc.pid } });
    // A fresh thread may take a pre-warmed process launched alike.
    else if (!request.session && (session = await this.#warm.take(signature))) {
      sink.emit({ type: "notice", kind: "lifecycle", message: "process reused", data: { pid: session.proc.pid, prewarmed: true } });
    } else {
      session = await AppServerSession.spawn(
        { command, config: this.config, request, signature, schedule: (spawn) => this.#spawns.add(spawn) },
        sink,
      );
    }
    this.#live.add(session);
    try {
      const { response, alive } = await session.runTurn({ request, sink, signal, plan, outputSchema, keepAlive: reusable });
      const threadId = session.threadId;
      if (alive && threadId && session.usable) this.#pool.park(threadId, session);
      else if (alive) await session.close();
      return response;
    } finally {
      this.#live.delete(session);
    }
  }
}
