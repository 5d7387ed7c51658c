import type { ResultLine } from "@adaptor/driver/kit";

/** What is known about the session's running cost before a turn, for {@link turnCostUsd}. */
export interface CostBaseline {
  /** `total_cost_usd` of the previous result line on the same process, when there was one. */
  readonly previousTotal?: number;
  /** The process started a new session (no `--resume`) and this is its first result: the running total starts at 0. */
  readonly freshSession: boolean;
}

/**
 * `usd` to 12 significant digits: a cost taken or derived from the CLI's figures (running totals,
 * per-model costs, their sums and differences) reads without float noise (`0.000594`, not
 * `0.0005939999999999999`; the CLI's own figures may carry some, e.g. `0.00045000000000000004`).
 * Token counts times list prices need far fewer digits.
 */
export function roundCost(usd: number): number {
  return Number(usd.toPrecision(12));
}

/**
 * The cost in US dollars of this turn alone. `total_cost_usd` is the session's running total (a
 * reused process adds to it, `--resume` restores it, a fork inherits it), so it is never reported
 * as is for a continued session. In order: the sum of `model_usage_since_last_result[*].costUSD`
 * (the CLI's own per-turn figure); else `total_cost_usd` minus the previous result's total on the
 * same process; else `total_cost_usd` when the session began in this process with this turn;
 * else undefined (the turn's share cannot be known). Rounded by {@link roundCost}.
 */
export function turnCostUsd(line: ResultLine, baseline: CostBaseline): number | undefined {
  const since = line.model_usage_since_last_result;
  if (since && typeof since === "object" && !Array.isArray(since)) {
    const costs = Object.values(since).map((model) => model?.costUSD);
    if (costs.every((cost): cost is number => typeof cost === "number" && Number.isFinite(cost) && cost >= 0)) {
      return roundCost(costs.reduce((sum, cost) => sum + cost, 0));
    }
  }
  const total = line.total_cost_usd;
  if (typeof total !== "number" || !Number.isFinite(total)) return undefined;
  if (baseline.previousTotal !== undefined) {
    const own = total - baseline.previousTotal;
    return own >= 0 ? roundCost(own) : undefined;
  }
  return baseline.freshSession ? roundCost(total) : undefined;
}
