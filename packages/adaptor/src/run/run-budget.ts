import type { DriverEvent, DriverFailure, RunBudget } from "@adaptor/driver";

/**
 * Holds a run to its `budget` option as the driver's events go by: tool calls (every `tool-call`
 * `start` with a new id), model responses (`notice` of kind `model.response`) and, at the end, the
 * reported cost. Calls `onExceeded` once with the `budget_exceeded` failure at the first event over
 * a limit.
 */
export class RunTally {
  readonly #budget: RunBudget;
  readonly #onExceeded: (failure: DriverFailure) => void;
  readonly #toolCalls = new Set<string>();
  #turns = 0;
  #exceeded = false;

  constructor(budget: RunBudget, onExceeded: (failure: DriverFailure) => void) {
    this.#budget = budget;
    this.#onExceeded = onExceeded;
  }

  /** Counts one driver event against the budget. */
  observe(event: DriverEvent): void {
    if (event.type === "tool-call" && event.phase === "start" && !this.#toolCalls.has(event.id)) {
      this.#toolCalls.add(event.id);
      this.#check("maxToolCalls", this.#toolCalls.size, "tool calls");
    } else if (event.type === "notice" && event.kind === "model.response") {
      this.#turns += 1;
      this.#check("maxTurns", this.#turns, "model responses");
    }
  }

  /** The failure for a finished run whose reported cost is over `maxCostUsd`, else undefined. */
  costFailure(costUsd: number | undefined): DriverFailure | undefined {
    const limit = this.#budget.maxCostUsd;
    if (limit === undefined || costUsd === undefined || costUsd <= limit) return undefined;
    return exceeded("maxCostUsd", limit, costUsd, `cost budget of $${limit} exceeded ($${costUsd})`);
  }

  /**
   * A driver's `budget_exceeded` failure (a CLI's own limit: `details.budget` names it) with the
   * SDK's `limit` and `used` added where the driver gave none: the configured limit, and the model
   * responses, tool calls or reported cost counted for the run. Any other failure is returned as is.
   */
  complete(failure: DriverFailure, costUsd: number | undefined): DriverFailure {
    const details = failure.details ?? {};
    const budget = details.budget;
    if (failure.reason !== "budget_exceeded" || (budget !== "maxTurns" && budget !== "maxToolCalls" && budget !== "maxCostUsd"))
      return failure;
    const used = budget === "maxTurns" ? this.#turns : budget === "maxToolCalls" ? this.#toolCalls.size : costUsd;
    return {
      ...failure,
      details: {
        ...details,
        ...(details.limit === undefined && this.#budget[budget] !== undefined ? { limit: this.#budget[budget] } : {}),
        ...(details.used === undefined && used !== undefined ? { used } : {}),
      },
    };
  }

  #check(budget: "maxToolCalls" | "maxTurns", used: number, what: string): void {
    const limit = this.#budget[budget];
    if (this.#exceeded || limit === undefined || used <= limit) return;
    this.#exceeded = true;
    this.#onExceeded(exceeded(budget, limit, used, `budget of ${limit} ${what} exceeded`));
  }
}

function exceeded(budget: keyof RunBudget, limit: number, used: number, message: string): DriverFailure {
  return { reason: "budget_exceeded", message, details: { budget, limit, used } };
}
