/**
 * The active-execution budget of a run (`policy.activeExecutionTimeoutMs`): counts run time,
 * pauses while a human is asked, and calls `onExhausted` once when `limitMs` of active time is used.
 */
export class ActiveBudget {
  readonly #limitMs: number;
  readonly #onExhausted: () => void;
  #usedMs = 0;
  #since: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #done = false;

  constructor(limitMs: number, onExhausted: () => void) {
    this.#limitMs = limitMs;
    this.#onExhausted = onExhausted;
  }

  /** Starts or resumes counting. */
  resume(): void {
    // Out of the timer's range (refused by the policy check anyway): never fire early.
    if (this.#done || this.#since !== undefined || !(this.#limitMs <= 2 ** 31 - 1)) return;
    this.#since = performance.now();
    this.#timer = setTimeout(() => this.#exhaust(), Math.max(0, this.#limitMs - this.#usedMs));
    this.#timer.unref();
  }

  /** Pauses counting (a human is being asked). */
  pause(): void {
    if (this.#since === undefined) return;
    this.#usedMs += performance.now() - this.#since;
    this.#since = undefined;
    clearTimeout(this.#timer);
  }

  /** Stops for good; no callback after this. */
  stop(): void {
    this.pause();
    this.#done = true;
  }

  #exhaust(): void {
    if (this.#done) return;
    this.#done = true;
    this.#since = undefined;
    this.#onExhausted();
  }
}
