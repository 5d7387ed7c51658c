// agent.inspect(): the driver's own inspection when it has one, an honest one otherwise, and the
// agent's lifecycle and signal rules.
import { describe, expect, it } from "vitest";
import type { DriverInspection } from "@adaptor/driver";
import { Agent, ErrAgentClosed, isError } from "adaptor";
import { scriptedDriver } from "./scripted-driver.js";

const INSPECTION: DriverInspection = {
  driver: "scripted",
  ok: true,
  executable: { command: "scripted", path: "/usr/bin/scripted", found: true },
  version: { found: "1.2.3", pinned: "1.2.3", matches: true },
  authentication: { present: true, method: "api_key", source: "SCRIPTED_KEY" },
  models: { supported: true, models: ["m1"] },
  mcp: { supported: false, transports: [] },
  skills: { supported: false },
  failed: [],
};

describe("agent.inspect()", () => {
  it("returns the driver's inspection and hands it the signal", async () => {
    const seen: (AbortSignal | undefined)[] = [];
    const driver = scriptedDriver(async () => ({}), { inspect: async (options) => (seen.push(options?.signal), INSPECTION) });
    const agent = new Agent(driver);
    const controller = new AbortController();
    expect(await agent.inspect({ signal: controller.signal })).toBe(INSPECTION);
    expect(seen).toEqual([controller.signal]);
    await agent.close();
  });

  it("a driver without inspect(): an inspection saying so, with what the descriptor tells", async () => {
    const agent = new Agent(scriptedDriver(async () => ({})));
    const inspection = await agent.inspect();
    expect(inspection).toMatchObject({
      driver: "scripted",
      ok: false,
      executable: { found: false },
      mcp: { supported: false, transports: [] },
    });
    expect(inspection.failed.map((f) => [f.check, f.reason])).toEqual([["executable", "probe_failed"]]);
    await agent.close();
  });

  it("rejects with ErrAgentClosed after close(), and with the reason of an aborted signal", async () => {
    const agent = new Agent(scriptedDriver(async () => ({}), { inspect: async () => INSPECTION }));
    const reason = new Error("stop");
    await expect(agent.inspect({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    await agent.close();
    expect(isError(await agent.inspect().catch((e: unknown) => e), ErrAgentClosed)).toBe(true);
  });
});
