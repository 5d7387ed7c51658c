import { randomUUID } from "node:crypto";
import {
  assertPolicySupported,
  type Driver,
  type DriverDescriptor,
  type DriverRequest,
  type DriverResponse,
  type DriverSink,
  type PrewarmRequest,
} from "@adaptor/driver";
import { forceKilledError, spawnCli, waitForCpuIdle, WarmPool } from "@adaptor/driver/process";
import PQueue from "p-queue";
import { validateClaudeConfig, type ClaudeConfig } from "./config.js";
import { prepareLaunch } from "./launch/launch.js";
import { classifyTurn } from "./protocol/classify.js";
import { checkpointData, readCheckpointData } from "./session/checkpoint-data.js";
import { ClaudeSession, type TurnOutcome } from "./session/claude-session.js";
import { launchSignature } from "./session/launch-signature.js";
import { DEFAULT_IDLE_MS, SessionPool } from "./session/session-pool.js";

const DEVICE = "claude";

/** Capabilities proved against claude 2.1.332 in this package's tests. */
export const CLAUDE_DESCRIPTOR: DriverDescriptor = deepFreeze<DriverDescriptor>({
  type: "claude",
  displayName: "Claude Code",
  capabilities: {
    sessions: { resume: true, fork: true },
    processReuse: true,
    // native: --json-schema, value from the result line's structured_output; prompt: instructions +
    // final text (test/structured-output.test.ts).
    structuredOutput: { native: true, prompt: true },
    mcp: { transports: ["stdio", "http"] },
    policy: { sandbox: ["read_only", "unrestricted"], webSearch: ["deny"], browser: [], activeExecutionTimeout: false },
    approvals: {
      permission: ["inherit", "ask", "auto_approve", "auto_deny"],
      plan_review: ["inherit", "ask", "auto_approve", "auto_deny"],
      question: ["inherit", "ask", "auto_deny"],
    },
    streaming: { textDeltas: true, thinking: true, toolCallArgs: true },
  },
});

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Where a pre-warmed process's events go before a run takes it: nowhere. */
const NO_SINK: DriverSink = {
  emit: () => undefined,
  requestApproval: () => Promise.resolve({ outcome: "deny", reason: "no run is being served" }),
};

/**
 * Drives the real `claude` binary in stream-json mode (docs/protocols.md "Claude Code"): the prompt goes on stdin as a user line,
 * every `can_use_tool` control request becomes an approval, the first `result` line is the
 * terminal, cancellation sends the CLI's `interrupt` before signals. Thread turns
 * (`request.reuseProcess`) run on a live process parked after the session's previous turn when
 * every spawn input is unchanged and the process's conversation ends at the turn's checkpoint; a
 * prompt written to a process is never written again. A turn that resumes in a new process starts
 * at the checkpoint's last message (`--resume-session-at`), so a failed, cancelled or denied turn
 * leaves no trace in the conversation. `costUsd` is the turn's own cost, never the session's
 * running total.
 */
export class ClaudeDriver implements Driver {
  /** What this driver can do (see the README's capability table). */
  readonly descriptor = CLAUDE_DESCRIPTOR;
  /** The configuration captured at construction. */
  readonly config: ClaudeConfig;
  readonly #live = new Set<ClaudeSession>();
  readonly #pool: SessionPool;
  readonly #warm: WarmPool<ClaudeSession>;
  readonly #spawns: PQueue;
  /** Where each process's stderr goes: the sink of the run it serves now. */
  readonly #stderrTo = new WeakMap<ClaudeSession, { sink: DriverSink }>();
  /** Why the config given to the constructor was refused, if it was. */
  readonly #invalid: unknown;

  constructor(config: ClaudeConfig = {}) {
    // An invalid config is reported by validateConfig() before any run, not thrown from here.
    let checked: ClaudeConfig = Object.freeze({});
    try {
      checked = validateClaudeConfig(config);
    } catch (error) {
      this.#invalid = error;
    }
    this.config = checked;
    this.#pool = new SessionPool(checked.idleMs);
    this.#warm = new WarmPool<ClaudeSession>(checked.idleMs ?? DEFAULT_IDLE_MS, (session) => session.usable);
    this.#spawns = new PQueue({ concurrency: checked.maxConcurrentSpawns ?? 4 });
  }

  /** @throws InvalidDriverConfigError (see {@link validateClaudeConfig}). */
  validateConfig(): void {
    if (this.#invalid !== undefined) throw this.#invalid;
    validateClaudeConfig(this.config);
  }

  /** Compatibility-relevant config for thread fingerprints: the executable, config dir and extra flags. */
  fingerprint(): unknown {
    return { command: this.config.command ?? null, configDir: this.config.configDir ?? null, extraArgs: this.config.extraArgs ?? [] };
  }

  /** Number of live processes parked for reuse. */
  get parkedProcesses(): number {
    return this.#pool.size;
  }

  /** Number of pre-warmed processes waiting for their first turn (see {@link prewarm}). */
  get prewarmedProcesses(): number {
    return this.#warm.size;
  }

  /**
   * Starts one claude process for a future first turn launched from `request`'s inputs and
   * resolves `true` once the CLI answered its `initialize` control request (it is then reading stdin)
   * and the start-up work it does after that answer has settled (on Linux: no CPU used for 150 ms,
   * waited for at most 2 s), so that work is not paid in the first turn.
   * A run of a fresh conversation (no `session`) with the same launch signature takes it instead
   * of spawning (a `notice` `process reused` with `prewarmed: true` says so); a run with any other
   * config, cwd, env, model, policy, MCP servers, skills or output schema never does. An unused
   * process ends after `idleMs` (default 5 minutes) and on {@link close}.
   *
   * @throws InvalidDriverConfigError, PolicyCapabilityUnsupportedError before launch; DriverError
   * `NOT_FOUND` for a missing executable; DriverError `DEVICE_DISCONNECTED` when the CLI ends before
   * it is ready; `signal.reason` when aborted (the process is ended).
   */
  async prewarm(request: PrewarmRequest, signal: AbortSignal = new AbortController().signal): Promise<boolean> {
    signal.throwIfAborted();
    this.validateConfig();
    assertPolicySupported(this.descriptor, request.policy);
    const first: DriverRequest = { ...request, runId: "prewarm", prompt: "" };
    const signature = launchSignature(this.config, first);
    const session = await this.#spawn(first, NO_SINK, signature);
    this.#live.add(session); // close() during the handshake ends it
    try {
      await session.initialize(signal);
      // The CLI goes on with start-up work after answering initialize (settings, plugins, hooks):
      // let it finish here rather than in the first turn.
      await waitForCpuIdle(session.proc.pid, { signal });
    } catch (error) {
      await session.close();
      throw error;
    } finally {
      this.#live.delete(session);
    }
    if (!session.usable) {
      await session.close();
      throw signal.reason ?? new Error("claude process ended before it was ready");
    }
    this.#warm.add(signature, session);
    return true;
  }

  /** Runs one turn; see {@link Driver.run} for the verdict contract. */
  async run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    signal.throwIfAborted();
    assertPolicySupported(this.descriptor, request.policy);
    const signature = launchSignature(this.config, request);
    const reusable = request.reuseProcess === true && !request.session?.fork;
    let session: ClaudeSession | undefined;
    // A parked process serves the turn only while its conversation ends at the turn's checkpoint.
    const checkpoint = readCheckpointData(request.session?.data);
    if (request.session && reusable) session = await this.#pool.take(request.session.resumeId, signature, checkpoint?.lastMessageId);
    // One writer per session: a fresh process for this session ends the parked one first.
    else if (request.session && !request.session.fork) await this.#pool.evict(request.session.resumeId);
    // A fresh conversation may take a pre-warmed process launched alike.
    if (!request.session) {
      session = await this.#warm.take(signature);
      if (session) sink.emit({ type: "notice", kind: "lifecycle", message: "process reused", data: { pid: session.proc.pid, prewarmed: true } });
    } else if (session) sink.emit({ type: "notice", kind: "lifecycle", message: "process reused", data: { pid: session.proc.pid } });
    session ??= await this.#spawn(request, sink, signature);
    const stderr = this.#stderrTo.get(session);
    if (stderr) stderr.sink = sink;
    this.#live.add(session);
    let outcome: TurnOutcome;
    try {
      outcome = await session.runTurn(request.prompt, sink, signal, reusable);
    } catch (error) {
      await session.close();
      this.#live.delete(session);
      throw error;
    }
    this.#live.delete(session);
    const alive = outcome.exit === undefined;
    if (signal.aborted) {
      await session.close();
      const exit = await session.proc.exited;
      throw exit.forceKilled ? forceKilledError(DEVICE, signal.reason) : signal.reason;
    }
    const response = this.#response(request, session, outcome);
    if (alive && !response.failure && session.sessionId && session.lastMessageId) this.#pool.park(session.sessionId, session);
    else await session.close();
    return response;
  }

  /** Ends every live and parked process of this driver. Idempotent. */
  async close(): Promise<void> {
    await Promise.all([...this.#live].map((session) => session.close()));
    await Promise.all([this.#pool.close(), this.#warm.close()]);
  }

  async #spawn(request: DriverRequest, sink: DriverSink, signature: string): Promise<ClaudeSession> {
    // A new conversation gets its id up front (--session-id); the checkpoint still takes the id the CLI reports.
    const launch = await prepareLaunch(this.config, request, request.session ? undefined : randomUUID());
    const stderr = { sink };
    try {
      const proc = await this.#spawns.add(() =>
        spawnCli({
          command: launch.command,
          args: launch.args,
          cwd: launch.cwd,
          env: launch.env,
          device: DEVICE,
          ...(this.config.killGraceMs !== undefined ? { killGraceMs: this.config.killGraceMs } : {}),
          ...(this.config.maxLineBytes !== undefined ? { maxLineBytes: this.config.maxLineBytes } : {}),
          ...(this.config.maxRawBytes !== undefined ? { maxRawBytes: this.config.maxRawBytes } : {}),
          onStderr: (text) => stderr.sink.emit({ type: "process", kind: "stderr", text }),
        }),
      );
      sink.emit({ type: "process", kind: "spawn", pid: proc.pid });
      const session = new ClaudeSession(proc, launch, signature, this.config.killGraceMs ?? 2000, request.session === undefined, this.config.askForEveryTool === true);
      this.#stderrTo.set(session, stderr);
      return session;
    } catch (error) {
      await launch.cleanup();
      throw error;
    }
  }

  #response(request: DriverRequest, session: ClaudeSession, outcome: TurnOutcome): DriverResponse {
    const { turn, exit } = outcome;
    const terminal = turn.terminal;
    const failure = classifyTurn({
      terminal: terminal?.line,
      exitCode: exit ? exit.code : 0,
      exitSignal: exit ? exit.signal : null,
      stderrTail: session.proc.stderrTail(),
      resuming: request.session !== undefined,
    });
    const usage = turn.usage();
    const line = terminal?.line;
    const model = turn.model ?? Object.keys(line?.modelUsage ?? {})[0];
    const sessionId = turn.sessionId ?? session.sessionId;
    return {
      text: line && !line.is_error && typeof line.result === "string" ? line.result : "",
      ...(line?.structured_output !== undefined ? { structured: line.structured_output } : {}),
      ...(model ? { model } : {}),
      provider: "anthropic",
      ...(usage ? { usage } : {}),
      ...(outcome.costUsd !== undefined ? { costUsd: outcome.costUsd } : {}),
      transcript: turn.transcript,
      raw: {
        ...outcome.output,
        ...(terminal ? { terminal: { event: "result", json: terminal.json } } : {}),
      },
      ...(!failure && sessionId
        ? { checkpoint: { resumeId: sessionId, ...(turn.lastMessageId ? { data: checkpointData(turn.lastMessageId) } : {}) } }
        : {}),
      ...(failure ? { failure } : {}),
      ...(exit ? { exit: { code: exit.code, signal: exit.signal } } : {}),
    };
  }
}
