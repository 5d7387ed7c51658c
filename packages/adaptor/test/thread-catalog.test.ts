import { describe, expect, it } from "vitest";
import type { DriverRequest } from "@adaptor/driver";
import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import {
  Agent,
  ErrThreadBusy,
  ErrThreadCatalogUnsupported,
  ErrThreadStoreRequired,
  InvalidThreadKeyError,
  ThreadCatalogUnsupportedError,
  isError,
} from "../src/index.js";
import { scriptedDriver, untilAborted } from "./scripted-driver.js";

/** A driver that answers every prompt and continues the session it was given (a new one per conversation). */
function echoDriver() {
  let sessions = 0;
  return scriptedDriver(async (request: DriverRequest) => ({
    text: `ok: ${request.prompt}`,
    checkpoint: { resumeId: request.session?.resumeId ?? `session-${++sessions}` },
  }));
}

describe("managing threads through the Agent", () => {
  it("listThreads pages the store's threads with their last update; thread.delete removes one and its next turn starts a new conversation", async () => {
    const store = new MemoryThreadStore();
    const driver = echoDriver();
    await using agent = new Agent(driver, { threadStore: store });
    for (const key of ["user-1/a", "user-1/b", "user-2/c"]) await agent.thread(key).run(`hello ${key}`);
    await agent.thread("user-1/a").run("second turn");

    const first = await agent.listThreads({ prefix: "user-1/", limit: 1 });
    expect(first.threads.map((t) => t.key)).toEqual(["user-1/a"]);
    expect(first.threads[0]?.revision).toBe(2);
    expect(first.threads[0]?.driverType).toBe("scripted");
    expect(first.threads[0]?.updatedAt.getTime()).toBeGreaterThanOrEqual(first.threads[0]?.createdAt.getTime() ?? Infinity);
    const second = await agent.listThreads({ prefix: "user-1/", limit: 1, cursor: first.nextCursor ?? "" });
    expect(second.threads.map((t) => t.key)).toEqual(["user-1/b"]);
    expect(second.nextCursor).toBeUndefined();

    const thread = agent.thread("user-1/a");
    expect(await thread.delete()).toStrictEqual({ records: 1, approvals: 0 });
    expect(await store.resolve({ key: "user-1/a", includeArchived: true })).toBeUndefined();
    expect((await agent.listThreads()).threads.map((t) => t.key)).toEqual(["user-1/b", "user-2/c"]);

    await thread.run("after delete");
    // A new conversation: the driver was given no session to resume.
    expect(driver.requests.at(-1)?.session).toBeUndefined();
    expect((await store.resolve({ key: "user-1/a" }))?.revision).toBe(1);
  });

  it("thread.delete asks the driver to end the process parked for the thread's conversation; an unknown key asks nothing", async () => {
    const released: string[] = [];
    let sessions = 0;
    const driver = scriptedDriver(
      async (request: DriverRequest) => ({ text: "ok", checkpoint: { resumeId: request.session?.resumeId ?? `session-${++sessions}` } }),
      { releaseSession: async (resumeId) => void released.push(resumeId) },
    );
    await using agent = new Agent(driver, { threadStore: new MemoryThreadStore() });
    await agent.thread("a").run("hello");
    await agent.thread("b").run("hello");
    await agent.thread("a").delete();
    await agent.deleteThread("never-used");
    expect(released).toEqual(["session-1"]);
  });

  it("deleting a thread while its turn runs fails with ErrThreadBusy, deletes nothing and ends no process", async () => {
    const store = new MemoryThreadStore();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const released: string[] = [];
    const driver = scriptedDriver(
      async (request, _sink, signal) => {
        if (request.prompt === "hold") {
          started();
          await untilAborted(signal);
        }
        return { text: "done", checkpoint: { resumeId: "s1" } };
      },
      { releaseSession: async (resumeId) => void released.push(resumeId) },
    );
    await using agent = new Agent(driver, { threadStore: store });
    await agent.thread("busy").run("first");
    const controller = new AbortController();
    const turn = agent.thread("busy").run("hold", { signal: controller.signal });
    await running;
    const refused = await agent.deleteThread("busy").catch((e: unknown) => e);
    expect(isError(refused, ErrThreadBusy)).toBe(true);
    expect((await store.resolve({ key: "busy" }))?.checkpoint.resumeId).toBe("s1");
    expect(released).toEqual([]);
    controller.abort();
    await turn.catch(() => undefined);
  });

  it("without a store, or with a store lacking the capability, listing and deleting are refused with typed errors", async () => {
    const memory = new MemoryThreadStore();
    const baseOnly: ThreadStore = {
      resolve: (q, s) => memory.resolve(q, s),
      acquireLease: (t, o, ttl, s) => memory.acquireLease(t, o, ttl, s),
      renewLease: (l, ttl, s) => memory.renewLease(l, ttl, s),
      releaseLease: (l, s) => memory.releaseLease(l, s),
      finalize: (r, s) => memory.finalize(r, s),
      close: () => memory.close(),
    };
    await using plain = new Agent(echoDriver());
    expect(isError(await plain.listThreads().catch((e: unknown) => e), ErrThreadStoreRequired)).toBe(true);
    await using limited = new Agent(echoDriver(), { threadStore: baseOnly });
    const refused = await limited.deleteThread("k").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ThreadCatalogUnsupportedError);
    expect(isError(refused, ErrThreadCatalogUnsupported)).toBe(true);
    await using agent = new Agent(echoDriver(), { threadStore: memory });
    await expect(agent.deleteThread("bad\u0000key")).rejects.toBeInstanceOf(InvalidThreadKeyError);
    await expect(agent.listThreads({ limit: 0 })).rejects.toBeInstanceOf(RangeError);
  });
});
