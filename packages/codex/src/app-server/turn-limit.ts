import type { DriverEvent, DriverFailure } from "@adaptor/driver";

/**
 * Holds an app-server turn to `budget.maxTurns` (model responses). Codex reports a response's
 * usage (its `model.response` notice) only after the tools it called have run, right before it
 * sends the next request: too late to stop that request. So the limit is reached at the first
 * tool call of the last allowed response: that response is then the last one, and the turn, which
 * would need another, is interrupted ({@link reached}). Best effort: a tool that finishes before
 * codex reads the interrupt still lets one more request go out.
 */
export class TurnLimit {
  readonly #limit: number | undefined;
  readonly #onReached: () => void;
  #responses = 0;
  #reached = false;

  /** `limit`: the most model responses, or undefined for none; `onReached` is called once, at the stop. */
  constructor(limit: number | undefined, onReached: () => void) {
    this.#limit = limit;
    this.#onReached = onReached;
  }

  /** True once the turn was stopped at the limit. */
  get reached(): boolean {
    return this.#reached;
  }

  /** Counts one event of the turn: `model.response` notices, and a tool call that would need one response more. */
  observe(event: DriverEvent): void {
    if (this.#limit === undefined || this.#reached) return;
    if (event.type === "notice" && event.kind === "model.response") this.#responses += 1;
    else if (event.type === "tool-call" && event.phase === "start" && this.#responses + 1 >= this.#limit) {
      this.#reached = true;
      this.#onReached();
    }
  }

  /** The `budget_exceeded` failure of a turn stopped at the limit: `details.used` is the limit, the responses made. */
  failure(): DriverFailure {
    const limit = this.#limit ?? 0;
    return {
      reason: "budget_exceeded",
      message: `budget of ${limit} model responses reached: the turn was stopped before its next model request`,
      details: { budget: "maxTurns", limit, used: limit },
    };
  }
}
