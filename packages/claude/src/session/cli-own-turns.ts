import type { Usage } from "@adaptor/driver";
import { resultUsage, type ResultLine } from "@adaptor/driver/kit";
import { roundCost, turnCostUsd, type CostBaseline } from "../protocol/turn-cost.js";

/** What the turns the CLI ran by itself between two of the host's prompts used and cost. */
export interface CliOwnUsage {
  /** How many such turns' results were read. */
  readonly turns: number;
  /** Their token usage, summed; undefined when none reported any. */
  readonly usage?: Usage;
  /** Their cost in US dollars, summed; undefined when any one's share cannot be known. */
  readonly costUsd?: number;
  /** `total_cost_usd` of the last of them, the running total the host's turn continues from. */
  readonly lastTotalCost?: number;
}

/** `a + b` field by field (an optional field present in either is kept). */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a || !b) return a ?? b;
  const sum = (x: number | undefined, y: number | undefined): number | undefined =>
    x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0);
  const cacheReadTokens = sum(a.cacheReadTokens, b.cacheReadTokens);
  const cacheWriteTokens = sum(a.cacheWriteTokens, b.cacheWriteTokens);
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}),
    ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
  };
}

/**
 * Sums the results of turns the CLI ran by itself (a background task's notification on a parked
 * process: `origin` set, no prompt of the host's), read before the host's own turn began. Each
 * one's cost is its share of the session's running total (see `turnCostUsd`), from `baseline`
 * on; undefined when there were none.
 */
export function cliOwnUsage(results: readonly ResultLine[], baseline: CostBaseline): CliOwnUsage | undefined {
  if (results.length === 0) return undefined;
  let usage: Usage | undefined;
  let costUsd: number | undefined = 0;
  let previousTotal = baseline.previousTotal;
  for (const line of results) {
    usage = addUsage(usage, resultUsage(line));
    const cost = turnCostUsd(line, { previousTotal, freshSession: false });
    costUsd = costUsd === undefined || cost === undefined ? undefined : roundCost(costUsd + cost);
    if (typeof line.total_cost_usd === "number") previousTotal = line.total_cost_usd;
  }
  return {
    turns: results.length,
    ...(usage ? { usage } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
    ...(previousTotal !== undefined ? { lastTotalCost: previousTotal } : {}),
  };
}
