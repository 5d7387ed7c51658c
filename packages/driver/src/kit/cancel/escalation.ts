import type { CliProcess } from "../../process/cli-process.js";
import type { ExitInfo } from "../../process/exit-info.js";

/** Resolves true when `promise` settled (either way) within `ms`, else false; the timer never holds Node open. */
export function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    const settle = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    void promise.then(settle, settle);
  });
}

/**
 * Gives a process whose work is done `graceMs` to exit on its own (close its stdin first, the way
 * most CLIs are told to end), then terminates it: SIGTERM to its group, SIGKILL after its
 * `killGraceMs` (`forceKilled`). `onTerminate` runs just before the SIGTERM, e.g. to emit a notice.
 * Never rejects.
 */
export async function exitOrTerminate(proc: CliProcess, graceMs: number, onTerminate?: () => void): Promise<ExitInfo> {
  if (await within(proc.exited, graceMs)) return proc.exited;
  onTerminate?.();
  return proc.terminate();
}

/** Options of an {@link InterruptEscalation}. */
export interface InterruptEscalationOptions {
  /** ms the CLI has to honour the interrupt, and then again to exit after stdin closes. */
  readonly graceMs: number;
  /**
   * Sends the CLI's own interrupt (a control request, a JSON-RPC call...). Returns false when there
   * is nothing to interrupt yet (e.g. no turn id known): the process is then terminated at once.
   * Must not throw; a failed write is the process exit's business.
   */
  readonly interrupt: () => boolean;
  /**
   * Settles when the CLI honoured the interrupt (its turn ended). Default: the process exited.
   * When it settles within the grace and the process is still up, stdin is closed and the process
   * gets another grace to exit; when it does not, the process is terminated.
   */
  readonly honoured?: Promise<unknown>;
}

/**
 * Cancels a CLI turn politely first: the CLI's interrupt, a grace for it to end the turn, stdin
 * closed and a grace to exit, and only then SIGTERM to the process group and SIGKILL after the
 * process's `killGraceMs` (reported as `forceKilled` in the exit). Idempotent; timers never hold
 * Node open. Wire `start` to the run's abort signal and await {@link settled} before deciding the
 * verdict.
 */
export class InterruptEscalation {
  readonly #proc: CliProcess;
  readonly #options: InterruptEscalationOptions;
  #done: Promise<unknown> = Promise.resolve();
  #started = false;

  constructor(proc: CliProcess, options: InterruptEscalationOptions) {
    this.#proc = proc;
    this.#options = options;
  }

  /** True once {@link start} ran. */
  get started(): boolean {
    return this.#started;
  }

  /** Starts cancelling; later calls do nothing. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    const proc = this.#proc;
    const { graceMs, honoured } = this.#options;
    if (!this.#options.interrupt()) {
      proc.closeStdin();
      this.#done = proc.terminate();
      return;
    }
    this.#done = (async () => {
      if (await within(honoured ?? proc.exited, graceMs)) {
        proc.closeStdin();
        await exitOrTerminate(proc, graceMs);
      } else {
        await proc.terminate();
      }
    })();
  }

  /** Resolves once everything this cancellation started has finished (the process is gone, or was never touched). */
  settled(): Promise<unknown> {
    return this.#done;
  }
}

export { raceAbort } from "@adaptor/errors/internal";
