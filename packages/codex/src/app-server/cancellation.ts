import type { CliProcess } from "@adaptor/driver/process";
import { exitOrTerminate, within } from "../process-helpers.js";
import type { JsonRpcConnection } from "@adaptor/driver/kit";

/**
 * Cancels an app-server run the polite way first: `turn/interrupt` for the running turn (codex
 * answers `{}` and ends the turn with status `interrupted`), then stdin closed so codex exits; only
 * when that does not happen within the grace is the process group terminated (SIGTERM, then SIGKILL
 * after another grace). Before a turn is known, it goes straight to terminate.
 */
export class AppServerCancellation {
  readonly #proc: CliProcess;
  readonly #rpc: JsonRpcConnection;
  readonly #graceMs: number;
  readonly #turnDone: Promise<unknown>;
  #turn: { threadId: string; turnId: string } | undefined;
  #done: Promise<unknown> = Promise.resolve();
  #started = false;

  constructor(proc: CliProcess, rpc: JsonRpcConnection, turnDone: Promise<unknown>, graceMs: number) {
    this.#proc = proc;
    this.#rpc = rpc;
    this.#turnDone = turnDone;
    this.#graceMs = graceMs;
  }

  /** Records the running turn, so a cancel can interrupt it. */
  turnStarted(threadId: string, turnId: string): void {
    this.#turn = { threadId, turnId };
  }

  /** True once {@link start} ran. */
  get started(): boolean {
    return this.#started;
  }

  /** Starts cancelling; idempotent. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    const proc = this.#proc;
    const turn = this.#turn;
    if (!turn) {
      proc.closeStdin();
      this.#done = proc.terminate();
      return;
    }
    this.#rpc.request("turn/interrupt", turn).catch(() => undefined);
    this.#done = (async () => {
      await within(this.#turnDone, this.#graceMs);
      proc.closeStdin();
      await exitOrTerminate(proc, this.#graceMs);
    })();
  }

  /** Resolves once everything this cancellation started has finished. */
  settled(): Promise<unknown> {
    return this.#done;
  }
}
