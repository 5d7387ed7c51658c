import { describe, expect, it } from "vitest";
import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import {
  Agent,
  ErrResumeRejected,
  ErrThreadAlreadyExists,
  ErrThreadBusy,
  ErrThreadCheckpointMissing,
  ErrThreadIncompatible,
  ErrThreadLeaseLost,
  ErrThreadNotFound,
  ErrThreadStoreRequired,
  RunError,
  isError,
} from "../src/index.js";
import { scriptedDriver, untilAborted } from "./scripted-driver.js";

/** A driver whose sessions are a counter: resumes append to the stored history. */
function sessionDriver(options: { rejectResume?: (id: string) => boolean; noCheckpoint?: boolean; historyIncomplete?: boolean } = {}) {
  const histories = new Map<string, string[]>();
  let next = 0;
  const driver = scriptedDriver(async (request) => {
    let id: string;
    if (request.session && !request.session.fork) {
      if (options.rejectResume?.(request.session.resumeId) || !histories.has(request.session.resumeId)) {
        return {
          failure: {
            reason: "resume_rejected",
            message: `no session ${request.session.resumeId}`,
            ...(options.historyIncomplete ? { details: { historyIncomplete: true } } : {}),
          },
        };
      }
      id = request.session.resumeId;
    } else {
      id = `s${++next}`;
      histories.set(id, request.session?.fork ? [...(histories.get(request.session.resumeId) ?? [])] : []);
    }
    const history = histories.get(id)!;
    history.push(request.prompt);
    return { text: history.join("|"), ...(options.noCheckpoint ? {} : { checkpoint: { resumeId: id } }) };
  });
  const { descriptor } = driver;
  // Its sessions resume and fork, so it declares both.
  return Object.assign(driver, {
    descriptor: { ...descriptor, capabilities: { ...descriptor.capabilities, sessions: { resume: true, fork: true } } },
  });
}

/** `driver` declaring that its resumed sessions continue on another model (`sessions.modelSwitch`). */
function modelSwitching<D extends ReturnType<typeof sessionDriver>>(driver: D): D {
  const { descriptor } = driver;
  const sessions = { ...descriptor.capabilities.sessions, modelSwitch: true };
  return Object.assign(Object.create(driver) as D, {
    descriptor: { ...descriptor, capabilities: { ...descriptor.capabilities, sessions } },
  });
}

describe("Thread API", () => {
  it("continues a conversation across turns and stores one active record", async () => {
    const store = new MemoryThreadStore();
    const agent = new Agent(sessionDriver(), { threadStore: store });
    const thread = agent.thread("t1");
    expect((await thread.run("a")).text).toBe("a");
    expect((await thread.run("b")).text).toBe("a|b");
    expect((await agent.thread("t1").run("c")).text).toBe("a|b|c");
    const record = await thread.checkpoint();
    expect(record).toMatchObject({ key: "t1", status: "active", driverType: "scripted", checkpoint: { resumeId: "s1" }, codec: "json/v1" });
  });

  it("an empty key throws TypeError at once; no store → ErrThreadStoreRequired", async () => {
    const agent = new Agent(sessionDriver());
    expect(() => agent.thread("")).toThrow(TypeError);
    const err = await agent
      .thread("k")
      .run("x")
      .catch((e: unknown) => e);
    expect(isError(err, ErrThreadStoreRequired)).toBe(true);
  });

  it("resumeOnly on a missing key → ErrThreadNotFound and the driver never runs", async () => {
    const driver = sessionDriver();
    const err = await new Agent(driver, { threadStore: new MemoryThreadStore() })
      .thread("missing", { resumeOnly: true })
      .run("x")
      .catch((e: unknown) => e);
    expect(isError(err, ErrThreadNotFound)).toBe(true);
    expect(driver.requests).toHaveLength(0);
  });

  it("resumeOnly on an existing key continues the conversation and keeps the record's identity", async () => {
    const store = new MemoryThreadStore();
    const agent = new Agent(sessionDriver(), { threadStore: store });
    expect((await agent.thread("k").run("a")).text).toBe("a");
    const before = await store.resolve({ key: "k" });
    expect((await agent.thread("k", { resumeOnly: true }).run("b")).text).toBe("a|b");
    expect((await agent.thread("k", { resumeOnly: true }).run("c")).text).toBe("a|b|c");
    const after = await store.resolve({ key: "k" });
    expect(after?.id).toBe(before?.id);
    expect(after?.checkpoint).toEqual({ resumeId: "s1" });
    expect(after?.revision).not.toBe(before?.revision);
  });

  it("busy: a second run on a leased key fails fast with ErrThreadBusy without starting the driver", async () => {
    const store = new MemoryThreadStore();
    const slow = scriptedDriver(async (_r, _s, signal) => untilAborted(signal));
    const first = new Agent(slow, { threadStore: store, owner: "w1" });
    const stream = first.thread("k").stream("long");
    await new Promise((r) => setTimeout(r, 20));
    const other = sessionDriver();
    const err = await new Agent(other, { threadStore: store, owner: "w2" })
      .thread("k")
      .run("x")
      .catch((e: unknown) => e);
    expect(isError(err, ErrThreadBusy)).toBe(true);
    expect(other.requests).toHaveLength(0);
    stream.cancel();
    await stream.result().catch(() => undefined);
    // The lease was released: the key is usable again.
    expect((await new Agent(other, { threadStore: store, owner: "w2" }).thread("k").run("y")).text).toBe("y");
  });

  it("a failed run never replaces a healthy checkpoint", async () => {
    const store = new MemoryThreadStore();
    let fail = false;
    const base = sessionDriver();
    const driver = scriptedDriver(async (request, sink, signal) => {
      if (fail) return { failure: { reason: "agent_error", message: "boom" }, checkpoint: { resumeId: "poison" } };
      return base.run(request, sink, signal);
    });
    const agent = new Agent(driver, { threadStore: store });
    await agent.thread("k").run("a");
    fail = true;
    expect(
      await agent
        .thread("k")
        .run("b")
        .catch((e: unknown) => e),
    ).toBeInstanceOf(RunError);
    expect((await store.resolve({ key: "k" }))?.checkpoint.resumeId).toBe("s1");
  });

  it("a successful run without a checkpoint → ErrThreadCheckpointMissing, previous record kept", async () => {
    const store = new MemoryThreadStore();
    await new Agent(sessionDriver(), { threadStore: store }).thread("k").run("a");
    const err = await new Agent(sessionDriver({ noCheckpoint: true }), { threadStore: store })
      .thread("k")
      .run("b")
      .catch((e: unknown) => e);
    expect(isError(err, ErrThreadCheckpointMissing)).toBe(true);
    expect((await store.resolve({ key: "k" }))?.checkpoint.resumeId).toBe("s1");
  });

  it("a driver that cannot switch models: a changed model makes the thread incompatible and the old record is kept", async () => {
    const store = new MemoryThreadStore();
    const driver = sessionDriver();
    await new Agent(driver, { threadStore: store, model: "m1" }).thread("k").run("a");
    const err = await new Agent(driver, { threadStore: store, model: "m2" })
      .thread("k")
      .run("b")
      .catch((e: unknown) => e);
    expect(isError(err, ErrThreadIncompatible)).toBe(true);
    expect((await store.resolve({ key: "k" }))?.checkpoint.resumeId).toBe("s1");
  });

  it("a driver whose sessions switch models: a turn with another model continues the thread on it", async () => {
    const store = new MemoryThreadStore();
    const driver = modelSwitching(sessionDriver());
    const agent = new Agent(driver, { threadStore: store, model: "m1" });
    expect((await agent.thread("k").run("a")).text).toBe("a");
    expect((await agent.thread("k").run("b", { model: "m2" })).text).toBe("a|b");
    expect((await new Agent(driver, { threadStore: store }).thread("k").run("c")).text).toBe("a|b|c");
    expect(driver.requests.map((request) => request.model)).toEqual(["m1", "m2", undefined]);
    expect((await store.resolve({ key: "k" }))?.checkpoint.resumeId).toBe("s1");
  });

  it("a driver whose sessions switch models: a changed identity still makes the thread incompatible", async () => {
    const store = new MemoryThreadStore();
    const driver = modelSwitching(sessionDriver());
    await new Agent(driver, { threadStore: store, identity: "alice" }).thread("k").run("a");
    const err = await new Agent(driver, { threadStore: store, identity: "bob" })
      .thread("k")
      .run("b", { model: "m2" })
      .catch((e: unknown) => e);
    expect(isError(err, ErrThreadIncompatible)).toBe(true);
    expect(driver.requests).toHaveLength(1);
  });

  it("a record written while the model was part of the fingerprint continues on the same model, then on any", async () => {
    const store = new MemoryThreadStore();
    const plain = sessionDriver();
    await new Agent(plain, { threadStore: store, model: "m1" }).thread("k").run("a");
    const switching = modelSwitching(plain);
    expect((await new Agent(switching, { threadStore: store, model: "m1" }).thread("k").run("b")).text).toBe("a|b");
    expect((await new Agent(switching, { threadStore: store, model: "m2" }).thread("k").run("c")).text).toBe("a|b|c");
  });

  it("newThread archives the old record only after the new run produced a checkpoint", async () => {
    const store = new MemoryThreadStore();
    const agent = new Agent(sessionDriver(), { threadStore: store });
    await agent.thread("k").run("old");
    const fresh = agent.newThread("k");
    expect((await fresh.run("new")).text).toBe("new");
    expect((await fresh.run("more")).text).toBe("new|more");
    expect((await store.resolve({ key: "k" }))?.checkpoint.resumeId).toBe("s2");
    expect((await store.resolve({ key: "k", includeArchived: true }))?.status).toBe("active");
  });

  it("fork branches from the parent, leaves it untouched, and refuses a taken target", async () => {
    const store = new MemoryThreadStore();
    const agent = new Agent(sessionDriver(), { threadStore: store });
    const parent = agent.thread("p");
    await parent.run("a");
    const child = parent.fork("c");
    expect((await child.run("b")).text).toBe("a|b");
    expect((await parent.run("x")).text).toBe("a|x");
    expect((await child.run("c")).text).toBe("a|b|c");
    const taken = await parent
      .fork("c")
      .run("again")
      .catch((e: unknown) => e);
    expect(isError(taken, ErrThreadAlreadyExists)).toBe(true);
    const orphan = await agent
      .thread("none")
      .fork("z")
      .run("q")
      .catch((e: unknown) => e);
    expect(isError(orphan, ErrThreadNotFound)).toBe(true);
  });

  it("resume rejected: continue-or-start falls back once to a fresh conversation; resume-only → ErrResumeRejected", async () => {
    const store = new MemoryThreadStore();
    let reject = false;
    const driver = sessionDriver({ rejectResume: () => reject });
    const agent = new Agent(driver, { threadStore: store });
    await agent.thread("k").run("a");
    reject = true;
    const strict = await agent
      .thread("k", { resumeOnly: true })
      .run("b")
      .catch((e: unknown) => e);
    expect(isError(strict, ErrResumeRejected)).toBe(true);
    expect((await store.resolve({ key: "k" }))?.checkpoint.resumeId).toBe("s1");
    const result = await agent.thread("k").run("c");
    expect(result.text).toBe("c");
    expect((await store.resolve({ key: "k" }))?.checkpoint.resumeId).toBe("s2");
  });

  it("resume_rejected with details.historyIncomplete → ErrResumeRejected even in continue-or-start mode (the driver's message its cause, as an Error); nothing started fresh", async () => {
    const store = new MemoryThreadStore();
    let reject = false;
    const driver = sessionDriver({ rejectResume: () => reject, historyIncomplete: true });
    const agent = new Agent(driver, { threadStore: store });
    await agent.thread("k").run("a");
    reject = true;
    const error = await agent
      .thread("k")
      .run("b")
      .catch((e: unknown) => e);
    expect(isError(error, ErrResumeRejected)).toBe(true);
    expect((error as Error).message).toBe("thread k: resume rejected: no session s1");
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(((error as Error).cause as Error).message).toBe("no session s1");
    expect(driver.requests).toHaveLength(2);
    expect((await store.resolve({ key: "k" }))?.checkpoint.resumeId).toBe("s1");
  });

  it("lease lost mid-run (renewals fail) → ErrThreadLeaseLost, record unchanged", async () => {
    const store = new MemoryThreadStore();
    await new Agent(sessionDriver(), { threadStore: store }).thread("k").run("a");
    const failing: ThreadStore = {
      resolve: (q, s) => store.resolve(q, s),
      acquireLease: (t, o, ttl, s) => store.acquireLease(t, o, ttl, s),
      renewLease: () => Promise.reject(new Error("store unreachable")),
      releaseLease: (l, s) => store.releaseLease(l, s),
      finalize: (r, s) => store.finalize(r, s),
      close: () => store.close(),
    };
    const err = await new Agent(
      scriptedDriver(async (_r, _s, signal) => untilAborted(signal)),
      {
        threadStore: failing,
        leaseTtlMs: 60,
      },
    )
      .thread("k")
      .run("b")
      .catch((e: unknown) => e);
    expect(isError(err, ErrThreadLeaseLost)).toBe(true);
    expect((await store.resolve({ key: "k" }))?.checkpoint.resumeId).toBe("s1");
  });

  it("thread events carry the thread key in meta", async () => {
    const stream = new Agent(sessionDriver(), { threadStore: new MemoryThreadStore() }).thread("key-9").stream("a");
    for await (const event of stream) expect(event.meta.threadKey).toBe("key-9");
    await stream.result();
  });

  it("two turns on one key in the same agent exclude each other: the second fails fast with ErrThreadBusy", async () => {
    const store = new MemoryThreadStore();
    const slow = scriptedDriver(async (_r, _s, signal) => untilAborted(signal));
    const agent = new Agent(slow, { threadStore: store });
    const first = agent.thread("k").stream("long");
    await new Promise((r) => setTimeout(r, 20));
    const second = await agent
      .thread("k")
      .run("again")
      .catch((e: unknown) => e);
    expect(isError(second, ErrThreadBusy)).toBe(true);
    expect(slow.requests).toHaveLength(1);
    first.cancel();
    await first.result().catch(() => undefined);
  });

  it("a live process is reused only while the conversation is where this agent left it", async () => {
    const store = new MemoryThreadStore();
    const driverA = sessionDriver();
    const a = new Agent(driverA, { threadStore: store });
    await a.thread("k").run("alpha");
    await a.thread("k").run("alpha-2");
    expect(driverA.requests.map((r) => r.reuseProcess)).toEqual([true, true]);
    // Another agent (another worker) continues the thread in between.
    const driverB = scriptedDriver(async (request) => ({ text: "b", checkpoint: { resumeId: request.session!.resumeId } }));
    await new Agent(driverB, { threadStore: store }).thread("k").run("beta");
    expect(driverB.requests[0]?.reuseProcess).toBe(false);
    await a.thread("k").run("gamma");
    expect(driverA.requests[2]?.reuseProcess).toBe(false);
    await a.thread("k").run("delta");
    expect(driverA.requests[3]?.reuseProcess).toBe(true);
  });
});
