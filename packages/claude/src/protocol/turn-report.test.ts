import { describe, expect, it } from "vitest";
import type { ResultLine } from "@adaptor/driver/kit";
import { turnReport } from "./turn-report.js";

/** A result line with the fields the report reads. */
function line(fields: Partial<ResultLine>): ResultLine {
  return { type: "result", subtype: "success", is_error: false, ...fields };
}

const since = (model: string, input: number, output: number, cost: number): ResultLine["model_usage_since_last_result"] => ({
  [model]: { inputTokens: input, outputTokens: output, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, costUSD: cost },
});

describe("a Claude turn's report from its result lines", () => {
  it("a turn in parts (a message the CLI answered after the result) sums turns, denials, model usage and API time", () => {
    const parts = [
      line({
        num_turns: 2,
        duration_api_ms: 1500,
        permission_denials: [{ tool_name: "Bash", tool_use_id: "t1", tool_input: { command: "ls" } }],
        model_usage_since_last_result: since("m", 10, 1, 0.1),
      }),
      line({ num_turns: 1, duration_api_ms: 1800, permission_denials: [], model_usage_since_last_result: since("m", 20, 2, 0.2) }),
    ];
    expect(turnReport(parts, [], { previousTotal: 1000, freshSession: false })).toEqual({
      numTurns: 3,
      durationApiMs: 800,
      modelUsage: { m: { inputTokens: 30, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: expect.closeTo(0.3, 12) } },
      permissionDenials: [{ toolName: "Bash", toolCallId: "t1", input: { command: "ls" } }],
    });
  });

  it("turns the CLI ran by itself before the prompt add their model usage and API time, not their turns or denials", () => {
    const own = [
      line({
        num_turns: 1,
        duration_api_ms: 1200,
        permission_denials: [{ tool_name: "Write", tool_use_id: "t0", tool_input: {} }],
        model_usage_since_last_result: since("other", 5, 1, 0.05),
      }),
    ];
    const last = line({
      num_turns: 1,
      duration_api_ms: 1500,
      permission_denials: [],
      model_usage_since_last_result: since("m", 10, 1, 0.1),
    });
    expect(turnReport([last], own, { previousTotal: 1000, freshSession: false })).toEqual({
      numTurns: 1,
      durationApiMs: 500,
      modelUsage: {
        other: { inputTokens: 5, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.05 },
        m: { inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.1 },
      },
      permissionDenials: [],
    });
  });

  it("API time: the total itself for a fresh session's first result; unknown for a resumed session's or a local command's", () => {
    const first = line({ num_turns: 1, duration_api_ms: 700 });
    expect(turnReport([first], [], { freshSession: true }).durationApiMs).toBe(700);
    expect(turnReport([first], [], { freshSession: false }).durationApiMs).toBeUndefined();
    const compact = line({ num_turns: 0, duration_api_ms: 0, local_command: "compact" });
    expect(turnReport([compact], [], { previousTotal: 700, freshSession: false }).durationApiMs).toBeUndefined();
  });

  it("a field a line does not report is left out rather than half-counted", () => {
    const old = line({ num_turns: 1, model_usage_since_last_result: since("m", 1, 1, 0.01) });
    const bare = line({});
    expect(turnReport([old, bare], [], { freshSession: true })).toEqual({});
    expect(turnReport([], [], { freshSession: true })).toEqual({});
  });
});
