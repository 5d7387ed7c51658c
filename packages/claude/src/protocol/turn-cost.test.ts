import { describe, expect, it } from "vitest";
import type { ResultLine } from "@adaptor/driver/kit";
import { turnCostUsd } from "./turn-cost.js";

/** A result line with the fields the cost reads. */
function line(fields: Partial<ResultLine>): ResultLine {
  return { type: "result", subtype: "success", is_error: false, ...fields };
}

describe("a Claude turn's own cost", () => {
  it("the difference of two running totals reads as the CLI's figures, without the subtraction's float noise", () => {
    expect(0.001594 - 0.001).not.toBe(0.000594);
    expect(turnCostUsd(line({ total_cost_usd: 0.001594 }), { previousTotal: 0.001, freshSession: false })).toBe(0.000594);
  });

  it("the per-model costs of the turn, summed, read the same way", () => {
    const since = {
      a: { inputTokens: 1, outputTokens: 1, costUSD: 0.1 },
      b: { inputTokens: 1, outputTokens: 1, costUSD: 0.2 },
    } as ResultLine["model_usage_since_last_result"];
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(turnCostUsd(line({ model_usage_since_last_result: since }), { freshSession: false })).toBe(0.3);
  });
});
