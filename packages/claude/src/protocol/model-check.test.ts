import { describe, expect, it } from "vitest";
import type { DriverEvent } from "@adaptor/driver";
import { checkModel } from "./model-check.js";

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
