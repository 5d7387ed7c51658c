import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { PrewarmRequest } from "@adaptor/driver";
import { Agent, ErrAgentClosed, InvalidPolicyError, defineTool, isError } from "adaptor";
import { scriptedDriver } from "./scripted-driver.js";

// agent.prewarm() hands the driver the spawn inputs a run with the same options would have.

function warmingDriver() {
  const warmed: PrewarmRequest[] = [];
  const driver = scriptedDriver(async () => ({ text: "ok" }), {
    prewarm: async (request: PrewarmRequest) => {
      warmed.push(request);
      return true;
    },
  });
  return { driver, warmed };
}

describe("agent.prewarm()", () => {
  it("passes the merged run options' spawn inputs to the driver, count times, and reports how many started", async () => {
    const { driver, warmed } = warmingDriver();
    const agent = new Agent(driver, { model: "m-agent", cwd: "/tmp", env: { A: "1" } });
    expect(await agent.prewarm({ count: 2, model: "m-run" })).toBe(2);
    expect(warmed).toEqual([
      { model: "m-run", cwd: "/tmp", env: { A: "1" } },
      { model: "m-run", cwd: "/tmp", env: { A: "1" } },
    ]);
    await agent.close();
  });

  it("reports 0 and starts nothing for a driver without prewarm or an Agent with host tools", async () => {
    expect(await new Agent(scriptedDriver(async () => ({ text: "ok" }))).prewarm()).toBe(0);
    const { driver, warmed } = warmingDriver();
    const tool = defineTool({ name: "t", description: "d", input: z.object({}), handler: async () => "x" });
    expect(await new Agent(driver, { tools: [tool] }).prewarm()).toBe(0);
    expect(warmed).toEqual([]);
  });

  it("rejects like a run: a bad count (InvalidOptionError), an unsupported policy, a closed agent (ErrAgentClosed)", async () => {
    const { driver, warmed } = warmingDriver();
    const agent = new Agent(driver);
    await expect(agent.prewarm({ count: 0 })).rejects.toMatchObject({ name: "InvalidOptionError", field: "count" });
    await expect(agent.prewarm({ coutn: 2 } as never)).rejects.toMatchObject({ name: "InvalidOptionError", suggestion: "count" });
    await expect(agent.prewarm({ policy: { sandbox: "bogus" as never } })).rejects.toBeInstanceOf(InvalidPolicyError);
    await agent.close();
    expect(isError(await agent.prewarm().catch((e: unknown) => e), ErrAgentClosed)).toBe(true);
    expect(warmed).toEqual([]);
  });
});
