import type { DriverEvent } from "@adaptor/driver";
import { describe, expect, it } from "vitest";
import { TurnLimit } from "./turn-limit.js";

const response: DriverEvent = { type: "notice", kind: "model.response", data: {} };
const toolCall = (id: string): DriverEvent => ({ type: "tool-call", phase: "start", id, name: "shell" });

/** Feeds `events` to a limit of `limit` responses; how many times it stopped the turn, and after which event. */
function run(limit: number | undefined, events: DriverEvent[]): { stops: number[]; limit: TurnLimit } {
  const stops: number[] = [];
  let at = -1;
  const turnLimit = new TurnLimit(limit, () => stops.push(at));
  events.forEach((event, index) => {
    at = index;
    turnLimit.observe(event);
  });
  return { stops, limit: turnLimit };
}

describe("TurnLimit (codex app-server turn budget)", () => {
  it("stops at the first tool call of the last allowed response, once, as codex reports a response's usage after its tools", () => {
    // Response 1 calls a tool, then its usage; response 2 (the last of 2) calls two tools.
    const { stops, limit } = run(2, [toolCall("a"), response, toolCall("b"), toolCall("c"), response]);
    expect(stops).toEqual([2]);
    expect(limit.reached).toBe(true);
    expect(limit.failure()).toEqual({
      reason: "budget_exceeded",
      message: "budget of 2 model responses reached: the turn was stopped before its next model request",
      details: { budget: "maxTurns", limit: 2, used: 2 },
    });
  });

  it("never stops a turn whose last allowed response answers without a tool, nor one without a limit", () => {
    expect(run(2, [toolCall("a"), response, response]).stops).toEqual([]);
    expect(run(undefined, [toolCall("a"), response, toolCall("b"), response]).stops).toEqual([]);
  });

  it("a limit of one response stops at the first tool call", () => {
    expect(run(1, [toolCall("a"), response]).stops).toEqual([0]);
  });
});
