import { InterruptEscalation, type JsonRpcConnection } from "@adaptor/driver/kit";
import type { CliProcess } from "@adaptor/driver/process";

/**
 * Cancels an app-server run the polite way first (the kit's {@link InterruptEscalation}):
 * `turn/interrupt` for the running turn (codex answers `{}` and ends the turn with status
 * `interrupted`), then stdin closed so codex exits; when the turn does not end within the grace, or
 * codex does not exit within the next, the process group is terminated (SIGTERM, then SIGKILL).
 * Before a turn is known, it goes straight to terminate.
 */
export class AppServerCancellation {
  readonly #escalation: InterruptEscalation;
  #turn: { threadId: string; turnId: string } | undefined;

  constructor(proc: CliProcess, rpc: JsonRpcConnection, turnDone: Promise<unknown>, graceMs: number) {
    this.#escalation = new InterruptEscalation(proc, {
      graceMs,
      honoured: turnDone,
      interrupt: () => {
        if (!this.#turn) return false;
        rpc.request("turn/interrupt", this.#turn).catch(() => undefined);
        return true;
      },
    });
  }

  /** Records the running turn, so a cancel can interrupt it. */
  turnStarted(threadId: string, turnId: string): void {
    this.#turn = { threadId, turnId };
  }

  /** True once {@link start} ran. */
  get started(): boolean {
    return this.#escalation.started;
  }

  /** Starts cancelling; idempotent. */
  start(): void {
    this.#escalation.start();
  }

  /** Resolves once everything this cancellation started has finished. */
  settled(): Promise<unknown> {
    return this.#escalation.settled();
  }
}
