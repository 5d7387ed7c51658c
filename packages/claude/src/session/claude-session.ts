import type { ApprovalDecision, DriverSink } from "@adaptor/driver";
import type { CliProcess, ExitInfo, OutputLine } from "@adaptor/driver/process";
import type { Launch } from "../launch/launch.js";
import { toApprovalAsk, toPermissionAnswer } from "../protocol/approvals.js";
import { controlError, interruptRequest, permissionResponse, userLine, type CanUseToolRequest } from "../protocol/messages.js";
import { TurnState } from "../protocol/turn-state.js";
import { checkMcpStatus } from "../protocol/mcp-status.js";

/** How one turn on a {@link ClaudeSession} ended. */
export interface TurnOutcome {
  readonly turn: TurnState;
  /** stdout and stderr written during this turn only. */
  readonly stdout: string;
  readonly stderr: string;
  /** Set when the process ended; undefined while it stays alive for the next turn. */
  readonly exit: ExitInfo | undefined;
}

/**
 * One live claude process in stream-json mode and the files it was launched with. Serves turns
 * one at a time (a user line in, lines out until the `result` line); the process either stays
 * alive for the next turn of its session or is ended. Its launch files live as long as it does.
 */
export class ClaudeSession {
  readonly proc: CliProcess;
  readonly signature: string;
  readonly #launch: Launch;
  readonly #lines: AsyncIterator<OutputLine>;
  readonly #graceMs: number;
  #closed: Promise<void> | undefined;
  /** The session id the CLI reported last. */
  sessionId: string | undefined;

  constructor(proc: CliProcess, launch: Launch, signature: string, graceMs: number) {
    this.proc = proc;
    this.#launch = launch;
    this.signature = signature;
    this.#graceMs = graceMs;
    this.#lines = proc.lines()[Symbol.asyncIterator]();
    void proc.exited.then(() => (this.#exited = true));
  }

  #exited = false;

  /** True while the process can take another turn. */
  get usable(): boolean {
    return this.#closed === undefined && !this.#exited;
  }

  /**
   * Runs one turn. With `keepAlive`, a clean success leaves the process running (stdin open);
   * otherwise stdin is closed after the result and the process is drained to its exit. On
   * `signal` abort the CLI's own interrupt goes first, then SIGTERM/SIGKILL after the grace.
   */
  async runTurn(prompt: string, sink: DriverSink, signal: AbortSignal, keepAlive: boolean): Promise<TurnOutcome> {
    const proc = this.proc;
    const stdoutStart = proc.stdout.length;
    const stderrStart = proc.stderr.length;
    const turn = new TurnState((event) => sink.emit(event));
    const cancel = new Cancellation(proc, this.#graceMs);
    const onAbort = (): void => cancel.start();
    signal.addEventListener("abort", onAbort, { once: true });
    let ended = false;
    try {
      // A dead child is classified from its exit; a failed write alone is no verdict.
      proc.writeJson(userLine(prompt)).catch(() => undefined);
      for (;;) {
        const next = await this.#lines.next();
        if (next.done) {
          ended = true;
          break;
        }
        const line = next.value;
        if (line.kind === "text") {
          sink.emit({ type: "process", kind: "stdout", text: line.text });
          continue;
        }
        if (typeof line.value !== "object" || line.value === null) continue;
        const message = line.value as Record<string, unknown>;
        checkMcpStatus(message, this.#launch.mcpServers, (event) => sink.emit(event)); // throws for a failed required server
        if (message.type === "control_request") this.#onControlRequest(sink, message, turn);
        else if (message.type === "control_response" || message.type === "keep_alive") continue;
        else if (turn.accept(message, line.text)) {
          const healthy = !turn.terminal?.line.is_error && turn.terminal?.line.subtype === "success";
          if (keepAlive && healthy && !signal.aborted) break;
          proc.closeStdin();
        }
      }
      if (!ended) {
        this.sessionId = turn.sessionId ?? this.sessionId;
        return { turn, stdout: proc.stdout.slice(stdoutStart), stderr: proc.stderr.slice(stderrStart), exit: undefined };
      }
      const exit = await proc.exited;
      return { turn, stdout: proc.stdout.slice(stdoutStart), stderr: proc.stderr.slice(stderrStart), exit };
    } finally {
      signal.removeEventListener("abort", onAbort);
      await cancel.settled();
    }
  }

  /** Terminates the process (if alive) and removes its launch files. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      await this.proc.close();
      await this.#lines.return?.();
      await this.#launch.cleanup();
    })();
    return this.#closed;
  }

  #onControlRequest(sink: DriverSink, message: Record<string, unknown>, turn: TurnState): void {
    const proc = this.proc;
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
