import { describe, expect, it } from "vitest";
import type { DriverEvent } from "@adaptor/driver";
import { checkModel, checkModelFallback, oncePerDifference, reportModel } from "./model-check.js";

function notices(message: Record<string, unknown>, requested: string | undefined): DriverEvent[] {
  const events: DriverEvent[] = [];
  checkModel(message, requested, (event) => events.push(event));
  return events;
}

const init = (model: unknown): Record<string, unknown> => ({ type: "system", subtype: "init", model });

describe("checkModel", () => {
  it("reports a replaced id as model.substituted and an alias as model.resolved", () => {
    expect(notices(init("claude-opus-5-5"), "claude-opus-4-1")).toMatchObject([
      { type: "notice", kind: "model.substituted", data: { requested: "claude-opus-4-1", used: "claude-opus-5-5" } },
    ]);
    expect(notices(init("claude-sonnet-5-5"), "sonnet[1m]")).toMatchObject([
      { type: "notice", kind: "model.resolved", data: { requested: "sonnet[1m]", used: "claude-sonnet-5-5" } },
    ]);
  });

  it("says nothing for the same model up to letter case and a context suffix, without a requested model, or for another line", () => {
    expect(notices(init("CLAUDE-OPUS-5-5"), "claude-opus-5-5")).toEqual([]);
    expect(notices(init("claude-sonnet-4-5[1m]"), "claude-sonnet-4-5")).toEqual([]);
    expect(notices(init("claude-opus-5-5"), undefined)).toEqual([]);
    expect(notices(init(undefined), "claude-opus-4-1")).toEqual([]);
    expect(notices({ type: "system", subtype: "status", model: "x-1" }, "claude-opus-4-1")).toEqual([]);
  });
});

describe("oncePerDifference", () => {
  it("passes each requested → used difference of a turn once, however many lines name it", () => {
    const events: DriverEvent[] = [];
    const emit = oncePerDifference((event) => events.push(event));
    reportModel("claude-opus-4-1", "claude-opus-5-5", emit); // the set_model answer
    checkModel(init("claude-opus-5-5"), "claude-opus-4-1", emit); // the turn's init line
    reportModel("opus", "claude-opus-5-5", emit);
    expect(events.map((event) => (event.type === "notice" ? [event.kind, event.data] : event.type))).toEqual([
      ["model.substituted", { requested: "claude-opus-4-1", used: "claude-opus-5-5" }],
      ["model.resolved", { requested: "opus", used: "claude-opus-5-5" }],
    ]);
  });
});

describe("checkModelFallback", () => {
  // The line claude 2.1.332 writes when the primary model is refused and --fallback-model is set.
  const line = {
    type: "system",
    subtype: "model_fallback",
    uuid: "a7c30c40-27f8-4763-84a6-c951b24b354e",
    trigger: "model_not_found",
    original_model: "claude-opus-4-5",
    fallback_model: "claude-sonnet-4-5",
    content: "Switched to Sonnet 4.5 because Opus 4.5 is not available",
    session_id: "14197ce1-ab01-4222-bd4f-1bfc4a3490d0",
  };

  it("reports the switch as model.substituted with the trigger and returns the fallback model; any other line is not one", () => {
    const events: DriverEvent[] = [];
    expect(checkModelFallback(line, (event) => events.push(event))).toBe("claude-sonnet-4-5");
    expect(events).toEqual([
      {
        type: "notice",
        kind: "model.substituted",
        message: "claude switched to the fallback model claude-sonnet-4-5 after claude-opus-4-5 failed (model_not_found)",
        data: { requested: "claude-opus-4-5", used: "claude-sonnet-4-5", trigger: "model_not_found" },
      },
    ]);
    expect(checkModelFallback(init("claude-sonnet-4-5"), () => expect.fail("no notice"))).toBeUndefined();
    expect(checkModelFallback({ ...line, fallback_model: "" }, () => expect.fail("no notice"))).toBeUndefined();
  });
});
