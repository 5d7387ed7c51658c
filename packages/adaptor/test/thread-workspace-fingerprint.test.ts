// A thread's fingerprint names the directory its CLI runs in: the run's or Agent's `cwd`, else the
// driver's, else `process.cwd()`. A record that named no workspace (made while the driver's cwd was
// not part of it) is refused with a message saying so, never continued by whoever asks.
import { describe, expect, it } from "vitest";
import { MemoryThreadStore, type ThreadRecord } from "@adaptor/threadstore";
import type { Driver } from "@adaptor/driver";
import { Agent, ErrThreadIncompatible, isError } from "../src/index.js";
import { threadFingerprint } from "../src/thread/fingerprint.js";
import { capabilityDriver } from "./support/capability-driver.js";

function driverIn(cwd: string | undefined): Driver {
  const driver = capabilityDriver({}, async () => ({ checkpoint: { resumeId: "s1" } }));
  return cwd === undefined ? driver : Object.assign(driver, { cwd });
}

async function turn(store: MemoryThreadStore, cwd: string | undefined): Promise<unknown> {
  const agent = new Agent(driverIn(cwd), { threadStore: store });
  try {
    await agent.thread("t").run("hello");
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await agent.close();
  }
}

/** A store whose records read back with the fingerprint a record naming no workspace had. */
class UnnamedWorkspaceStore extends MemoryThreadStore {
  override async resolve(...args: Parameters<MemoryThreadStore["resolve"]>): Promise<ThreadRecord | undefined> {
    const record = await super.resolve(...args);
    if (record === undefined) return undefined;
    const fingerprint = threadFingerprint({
      driverType: "capability",
      model: undefined,
      workspace: undefined,
      identity: "",
      driverConfig: null,
    });
    return { ...record, fingerprint };
  }
}

describe("thread fingerprint and the driver's cwd", () => {
  it("drivers running in different folders do not continue each other's thread (ErrThreadIncompatible)", async () => {
    const store = new MemoryThreadStore();
    expect(await turn(store, "/srv/alice")).toBeUndefined();
    const err = await turn(store, "/srv/bob");
    expect(isError(err, ErrThreadIncompatible)).toBe(true);
    expect((err as Error).message).toMatch(/fingerprint changed \(driver type, workspace/);
  });

  it("a driver running in the same folder continues it", async () => {
    const store = new MemoryThreadStore();
    expect(await turn(store, "/srv/alice")).toBeUndefined();
    expect(await turn(store, "/srv/alice")).toBeUndefined();
  });

  it("a driver with no cwd names process.cwd(), as a run cwd of process.cwd() does", async () => {
    const store = new MemoryThreadStore();
    expect(await turn(store, undefined)).toBeUndefined();
    expect(await turn(store, process.cwd())).toBeUndefined();
  });

  it("a record naming no workspace is refused with ErrThreadIncompatible saying why", async () => {
    const store = new UnnamedWorkspaceStore();
    expect(await turn(store, "/srv/alice")).toBeUndefined();
    const err = await turn(store, "/srv/alice");
    expect(isError(err, ErrThreadIncompatible)).toBe(true);
    expect((err as Error).message).toMatch(/the record names no workspace/);
  });
});
