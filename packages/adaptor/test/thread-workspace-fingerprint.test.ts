// A thread's fingerprint names the directory its CLI runs in: the run's or Agent's `cwd`, else the
// driver's, else `process.cwd()`. A record that named no workspace (made while the driver's cwd was
// not part of it) is refused with a message saying so when a cwd is given, never continued by whoever
// asks; with no cwd anywhere it is continued and rewritten. A relative cwd names the folder it
// resolves to, not its spelling.
import { resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
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

/** What a record made for the capability driver in `workspace` holds (none: a legacy record). */
function fingerprintIn(workspace: string | undefined): string {
  return threadFingerprint({ driverType: "capability", model: undefined, workspace, identity: "", driverConfig: null });
}

/** A store whose records read back with the fingerprint a record naming `workspace` had. */
class WorkspaceStore extends MemoryThreadStore {
  constructor(readonly workspace: string | undefined) {
    super();
  }

  override async resolve(...args: Parameters<MemoryThreadStore["resolve"]>): Promise<ThreadRecord | undefined> {
    const record = await super.resolve(...args);
    if (record === undefined) return undefined;
    return { ...record, fingerprint: fingerprintIn(this.workspace) };
  }

  /** The record as stored, not as {@link resolve} reads it back. */
  stored(key: string): Promise<ThreadRecord | undefined> {
    return super.resolve({ key });
  }
}

/** A store whose records read back with the fingerprint a record naming no workspace had. */
class UnnamedWorkspaceStore extends WorkspaceStore {
  constructor() {
    super(undefined);
  }
}

async function runIn(store: MemoryThreadStore, cwd: string | undefined, runCwd?: string): Promise<unknown> {
  const agent = new Agent(driverIn(cwd), { threadStore: store });
  try {
    await agent.thread("t").run("hello", runCwd !== undefined ? { cwd: runCwd } : {});
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await agent.close();
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

  it("a record naming no workspace is continued when no cwd is given anywhere, and rewritten naming process.cwd()", async () => {
    const store = new UnnamedWorkspaceStore();
    expect(await turn(store, undefined)).toBeUndefined();
    expect(await turn(store, undefined)).toBeUndefined();
    expect((await store.stored("t"))?.fingerprint).toBe(fingerprintIn(process.cwd()));
  });
});

describe("thread fingerprint and a relative or unnormalised cwd", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('"ws" and "./ws/" name one folder and continue each other\'s thread', async () => {
    const store = new MemoryThreadStore();
    expect(await turn(store, "ws")).toBeUndefined();
    expect(await turn(store, "./ws/")).toBeUndefined();
    expect(await runIn(store, undefined, resolve("ws"))).toBeUndefined();
  });

  it('"ws" from two different process folders names two folders (ErrThreadIncompatible)', async () => {
    const store = new MemoryThreadStore();
    vi.spyOn(process, "cwd").mockReturnValue("/srv/alice");
    expect(await turn(store, "ws")).toBeUndefined();
    vi.spyOn(process, "cwd").mockReturnValue("/srv/bob");
    const err = await turn(store, "ws");
    expect(isError(err, ErrThreadIncompatible)).toBe(true);
    expect((err as Error).message).toMatch(/fingerprint changed \(driver type, workspace/);
  });

  it('"/srv/a/" and "/srv/a" continue each other\'s thread', async () => {
    const store = new MemoryThreadStore();
    expect(await turn(store, "/srv/a/")).toBeUndefined();
    expect(await turn(store, "/srv/a")).toBeUndefined();
  });

  it("a record made with an absolute cwd as given, unnormalised, is still continued", async () => {
    const store = new WorkspaceStore("/srv/a/");
    expect(await turn(store, "/srv/a/")).toBeUndefined();
    expect(await turn(store, "/srv/a/")).toBeUndefined();
    expect((await store.stored("t"))?.fingerprint).toBe(fingerprintIn("/srv/a"));
  });
});
