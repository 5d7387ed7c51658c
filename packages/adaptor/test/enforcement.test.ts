import { describe, expect, it } from "vitest";
import { Agent, RunError, type PolicyEnforcement } from "adaptor";
import { scriptedDriver } from "./scripted-driver.js";

// Result.enforcement: the driver's report of how it enforced the run's policy, plus the SDK's own budget.

const ASK: PolicyEnforcement = {
  field: "approvals.permission",
  value: "ask",
  enforced: true,
  mechanisms: ["approval"],
  detail: "the CLI asks",
};

describe("Result.enforcement", () => {
  it("carries the driver's report, frozen, and adds the SDK's active-time budget", async () => {
    const driver = scriptedDriver(async () => ({ text: "ok", enforcement: [ASK] }));
    const result = await new Agent(driver).run("hi", { policy: { approvals: { permission: "ask" }, activeExecutionTimeoutMs: 60_000 } });
    expect(result.enforcement).toEqual([
      ASK,
      { field: "activeExecutionTimeoutMs", value: "60000", enforced: true, mechanisms: ["sdk"], detail: "the SDK's active-time budget" },
    ]);
    expect(Object.isFrozen(result.enforcement)).toBe(true);
    expect(Object.isFrozen(result.enforcement[0])).toBe(true);
  });

  it("is empty for a run without a policy and a driver that reports nothing", async () => {
    const result = await new Agent(scriptedDriver(async () => ({ text: "ok" }))).run("hi");
    expect(result.enforcement).toEqual([]);
  });

  it("a failed run's RunError.result carries the report too", async () => {
    const driver = scriptedDriver(async () => ({ text: "", enforcement: [ASK], failure: { reason: "agent_error", message: "boom" } }));
    const error = await new Agent(driver).run("hi", { policy: { approvals: { permission: "ask" } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).result.enforcement).toEqual([ASK]);
  });
});
