import { describe, expect, it } from "vitest";
import { planModeArgs } from "./plan-mode.js";

describe("planModeArgs", () => {
  it("replaces the policy's permission mode by plan and returns to it after the plan (default without one)", () => {
    expect(planModeArgs(["--permission-mode", "default"])).toEqual({ args: ["--permission-mode", "plan"], modeAfterPlan: "default" });
    expect(planModeArgs([])).toEqual({ args: ["--permission-mode", "plan"], modeAfterPlan: "default" });
  });

  it("under read_only adds ExitPlanMode to the offered tools and returns to dontAsk", () => {
    expect(planModeArgs(["--tools", "Read,Glob", "--permission-mode", "dontAsk"])).toEqual({
      args: ["--tools", "Read,Glob,ExitPlanMode", "--permission-mode", "plan"],
      modeAfterPlan: "dontAsk",
    });
  });

  it("under unrestricted makes bypassPermissions an option to return to", () => {
    expect(planModeArgs(["--permission-mode", "bypassPermissions"])).toEqual({
      args: ["--permission-mode", "plan", "--allow-dangerously-skip-permissions"],
      modeAfterPlan: "bypassPermissions",
    });
  });
});
