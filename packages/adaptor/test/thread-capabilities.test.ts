import { describe, expect, it, vi } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, ErrFeatureUnsupported, FeatureUnsupportedError, findError, isError } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

// A thread mode that needs a session capability the driver does not declare is refused before
// anything runs, whatever the driver: no store access, no lease, no driver call.

/** A scripted driver declaring `sessions`; `transfer`: it can find its CLI's sessions by id (as adoption needs). */
function driverWith(sessions: { resume: boolean; fork: boolean }, transfer = false) {
  let next = 0;
  const driver = scriptedDriver(
    async (request) => ({
      text: "ok",
      checkpoint: { resumeId: request.session && !request.session.fork ? request.session.resumeId : `s${++next}` },
    }),
    transfer ? { sessions: { format: "scripted/v1", exportSession: async () => [], importSession: async () => undefined } } : {},
  );
  const { descriptor } = driver;
  return Object.assign(driver, { descriptor: { ...descriptor, capabilities: { ...descriptor.capabilities, sessions } } });
}

describe("thread modes against the driver's declared session capabilities", () => {
  it("thread.fork() on a driver without sessions.fork: FeatureUnsupportedError (feature fork), the driver never called, the store untouched", async () => {
    const store = new MemoryThreadStore();
    const driver = driverWith({ resume: true, fork: false });
    await using agent = new Agent(driver, { threadStore: store });
    await agent.thread("parent").run("parent turn");
    const calls = driver.requests.length;
    const resolve = vi.spyOn(store, "resolve");
    const acquire = vi.spyOn(store, "acquireLease");
    const stream = agent.thread("parent").fork("child").stream("fork turn");
    const events = [];
    for await (const event of stream) events.push(event);
    const refused = await stream.result().catch((e: unknown) => e);
    expect(isError(refused, ErrFeatureUnsupported)).toBe(true);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "scripted", feature: "fork" });
    expect(driver.requests.length).toBe(calls);
    expect(resolve).not.toHaveBeenCalled();
    expect(acquire).not.toHaveBeenCalled();
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: false });
  });

  it("the same fork on a driver that declares sessions.fork runs as a fork", async () => {
    const driver = driverWith({ resume: true, fork: true });
    await using agent = new Agent(driver, { threadStore: new MemoryThreadStore() });
    await agent.thread("parent").run("parent turn");
    await agent.thread("parent").fork("child").run("fork turn");
    expect(driver.requests.at(-1)?.session).toMatchObject({ fork: true });
  });

  it("adoptSession on a driver without sessions.resume: FeatureUnsupportedError (feature adoptSession), the driver never called, the store untouched", async () => {
    const store = new MemoryThreadStore();
    const driver = driverWith({ resume: false, fork: false }, true);
    const acquire = vi.spyOn(store, "acquireLease");
    await using agent = new Agent(driver, { threadStore: store });
    const refused = await agent
      .thread("imported", { adoptSession: "cli-session-1" })
      .run("first adopted turn")
      .catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "scripted", feature: "adoptSession" });
    expect(driver.requests).toEqual([]);
    expect(acquire).not.toHaveBeenCalled();
  });

  it("checkpointFiles on a driver without sessions.fromCheckpoint: FeatureUnsupportedError (feature checkpointFiles) before the lease is taken", async () => {
    const store = new MemoryThreadStore();
    const driver = driverWith({ resume: true, fork: true });
    const acquire = vi.spyOn(store, "acquireLease");
    const resolve = vi.spyOn(store, "resolve");
    await using agent = new Agent(driver, { threadStore: store });
    const refused = await agent
      .thread("t")
      .run("one", { checkpointFiles: true })
      .catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "scripted", feature: "checkpointFiles" });
    expect(driver.requests).toEqual([]);
    expect(acquire).not.toHaveBeenCalled();
    expect(resolve).not.toHaveBeenCalled();
  });
});
