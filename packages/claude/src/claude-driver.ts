import type {
  ApprovalDecision,
  Driver,
  DriverDescriptor,
  DriverRequest,
  DriverResponse,
  DriverSink,
} from "@adaptor/driver";
import { forceKilledError, spawnCli, type CliProcess, type ExitInfo } from "@adaptor/driver/process";
import { validateClaudeConfig, type ClaudeConfig } from "./config.js";
import { prepareLaunch } from "./launch/launch.js";
import { toApprovalAsk, toPermissionAnswer } from "./protocol/approvals.js";
import { classifyTurn } from "./protocol/classify.js";
import {
  controlError,
  interruptRequest,
  permissionResponse,
  userLine,
  type CanUseToolRequest,
} from "./protocol/messages.js";
import { TurnState } from "./protocol/turn-state.js";

const DEVICE = "claude";

/** Capabilities proved against claude 2.1.332 in this package's tests. */
export const CLAUDE_DESCRIPTOR: DriverDescriptor = deepFreeze<DriverDescriptor>({
  type: "claude",
  displayName: "Claude Code",
  capabilities: {
    sessions: { resume: false, fork: false },
    processReuse: false,
    structuredOutput: { native: false, prompt: false },
    mcp: { transports: [] },
    policy: { sandbox: ["read_only", "unrestricted"], webSearch: ["deny"], browser: [], activeExecutionTimeout: true },
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

/**
 * Drives the real `claude` binary in stream-json mode (cli-protocols.md §2): the prompt goes on
 * stdin as a user line, every `can_use_tool` control request becomes an approval, the first
 * `result` line is the terminal, cancellation sends the CLI's `interrupt` before signals.
 */
export class ClaudeDriver implements Driver {
  readonly descriptor = CLAUDE_DESCRIPTOR;
  readonly config: ClaudeConfig;
  readonly #live = new Set<CliProcess>();

  constructor(config: ClaudeConfig = {}) {
    this.config = Object.freeze({ ...config, ...(config.extraArgs ? { extraArgs: [...config.extraArgs] } : {}) });
  }

  /** @throws InvalidDriverConfigError (see {@link validateClaudeConfig}). */
  validateConfig(): void {
    validateClaudeConfig(this.config);
  }

  /** Runs one turn in a fresh process; see {@link Driver.run} for the verdict contract. */
  async run(request: DriverRequest, sink: DriverSink, signal: AbortSignal): Promise<DriverResponse> {
    signal.throwIfAborted();
    const launch = await prepareLaunch(this.config, request);
    let proc: CliProcess;
    try {
      proc = await spawnCli({
        command: launch.command,
        args: launch.args,
        cwd: launch.cwd,
        env: launch.env,
        device: DEVICE,
        ...(this.config.killGraceMs !== undefined ? { killGraceMs: this.config.killGraceMs } : {}),
        ...(this.config.maxLineBytes !== undefined ? { maxLineBytes: this.config.maxLineBytes } : {}),
        onStderr: (text) => sink.emit({ type: "process", kind: "stderr", text }),
      });
    } catch (error) {
      await launch.cleanup();
      throw error;
    }
    this.#live.add(proc);
    sink.emit({ type: "process", kind: "spawn", pid: proc.pid });
    const turn = new TurnState((event) => sink.emit(event));
    const cancel = new Cancellation(proc, this.config.killGraceMs ?? 2000);
    const onAbort = (): void => cancel.start();
    signal.addEventListener("abort", onAbort, { once: true });
    let exit: ExitInfo;
    try {
      // A dead child is classified from its exit below; a failed write alone is no verdict.
      proc.writeJson(userLine(request.prompt)).catch(() => undefined);
      for await (const line of proc.lines()) {
        if (line.kind === "text") {
          sink.emit({ type: "process", kind: "stdout", text: line.text });
          continue;
        }
        const value = line.value;
        if (typeof value !== "object" || value === null) continue;
        const message = value as Record<string, unknown>;
        if (message.type === "control_request") {
          this.#onControlRequest(proc, sink, message, turn);
        } else if (message.type === "control_response" || message.type === "keep_alive") {
          continue;
        } else if (turn.accept(message, line.text)) {
          proc.closeStdin();
        }
      }
      exit = await proc.exited;
    } finally {
      signal.removeEventListener("abort", onAbort);
      await cancel.settled();
      await proc.close();
      this.#live.delete(proc);
      await launch.cleanup();
    }
    if (signal.aborted) {
      const exitInfo = await proc.exited;
      throw exitInfo.forceKilled ? forceKilledError(DEVICE, signal.reason) : signal.reason;
    }
    return this.#response(proc, turn, exit);
  }

  /** Terminates every live process of this driver. Idempotent. */
  async close(): Promise<void> {
    await Promise.all([...this.#live].map((proc) => proc.close()));
  }

  #onControlRequest(proc: CliProcess, sink: DriverSink, message: Record<string, unknown>, turn: TurnState): void {
    const requestId = String(message.request_id);
    const request = message.request as { subtype?: string } | undefined;
    if (request?.subtype !== "can_use_tool") {
      proc.writeJson(controlError(requestId, `unsupported control request ${String(request?.subtype)}`)).catch(() => undefined);
      return;
    }
    const ask = request as CanUseToolRequest;
    sink
      .requestApproval(toApprovalAsk(ask, turn.toolInput(ask.tool_use_id)))
      .then((decision: ApprovalDecision) => proc.writeJson(permissionResponse(requestId, toPermissionAnswer(ask, decision))))
      .catch(() => undefined); // the process is gone: its exit decides the verdict
  }

  #response(proc: CliProcess, turn: TurnState, exit: ExitInfo): DriverResponse {
    const terminal = turn.terminal;
    const failure = classifyTurn({
      terminal: terminal?.line,
      exitCode: exit.code,
      exitSignal: exit.signal,
      stderrTail: proc.stderrTail(),
    });
    const usage = turn.usage();
    const line = terminal?.line;
    const model = turn.model ?? Object.keys(line?.modelUsage ?? {})[0];
    return {
      text: line && !line.is_error && typeof line.result === "string" ? line.result : "",
      ...(line?.structured_output !== undefined ? { structured: line.structured_output } : {}),
      ...(model ? { model } : {}),
      provider: "anthropic",
      ...(usage ? { usage } : {}),
      ...(typeof line?.total_cost_usd === "number" ? { costUsd: line.total_cost_usd } : {}),
      transcript: turn.transcript,
      raw: {
        stdout: proc.stdout,
        stderr: proc.stderr,
        ...(terminal ? { terminal: { event: "result", json: terminal.json } } : {}),
      },
      ...(!failure && turn.sessionId ? { checkpoint: { resumeId: turn.sessionId } } : {}),
      ...(failure ? { failure } : {}),
      exit: { code: exit.code, signal: exit.signal },
    };
  }
}

/** Interrupt first, then SIGTERM/SIGKILL through `terminate()` if the CLI does not end in time. */
class Cancellation {
  readonly #proc: CliProcess;
  readonly #graceMs: number;
  #done: Promise<unknown> = Promise.resolve();
  #started = false;

  constructor(proc: CliProcess, graceMs: number) {
    this.#proc = proc;
    this.#graceMs = graceMs;
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    const proc = this.#proc;
    proc.writeJson(interruptRequest(`interrupt_${Date.now()}`)).catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const escalate = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.#graceMs);
      timer.unref();
    });
    this.#done = Promise.race([proc.exited.then(() => "exited" as const), escalate.then(() => "timeout" as const)]).then(
      (how) => {
        clearTimeout(timer);
        return how === "timeout" ? proc.terminate() : undefined;
      },
    );
  }

  /** Resolves once any escalation this cancellation started has finished. */
  settled(): Promise<unknown> {
    return this.#done;
  }
}
