import { describe, expect, it } from "vitest";
import { SessionConfigFingerprintError } from "@adaptor/driver";
import { walkError } from "@adaptor/errors";
import { BusyError, MemoryThreadStore, type Lease, type StoreFaults, type StoreOperation, type ThreadStore } from "@adaptor/threadstore";
import { FaultPlan } from "@adaptor/threadstore/testing";
import {
  Agent,
  ErrResumeRejected,
  ErrThreadIncompatible,
  ErrThreadLeaseLost,
  ErrAgentClosed,
  RunError,
  findError,
  isError,
} from "../src/index.js";
import { scriptedDriver, untilAborted } from "./scripted-driver.js";

// Every path after the lease is taken must give it back: the proof is a second run on the same
// key, by another agent (another lease owner), that succeeds at once instead of ErrThreadBusy.
// The default lease TTL is 30 s, so a leaked lease would make that second run fail.

/** A healthy driver: one session per thread, a checkpoint after every run. */
function healthyDriver() {
  return scriptedDriver(async (request) => ({ text: `ok:${request.prompt}`, checkpoint: { resumeId: request.session?.resumeId ?? "s1" } }));
}

/** Store fault hooks that fail the next `operation` once (a backend error at that point). */
class OneShotFault implements StoreFaults {
  #armed: StoreOperation | undefined;
  arm(operation: StoreOperation): void {
    this.#armed = operation;
  }
  beforeOperation(operation: StoreOperation): void {
    if (operation !== this.#armed) return;
    this.#armed = undefined;
    throw new Error(`injected ${operation} failure`);
  }
}

/** The proof: another agent runs on `key` at once and succeeds. */
async function secondRunSucceeds(store: ThreadStore, key = "k"): Promise<void> {
  const result = await new Agent(healthyDriver(), { threadStore: store, owner: "second-worker" }).thread(key).run("again");
  expect(result.text).toBe("ok:again");
}

describe("no lease outlives its run", () => {
  it("driver throw: the lease is released and a second run on the key succeeds at once", async () => {
    const store = new MemoryThreadStore();
    const driver = scriptedDriver(async () => {
      throw new Error("driver exploded");
    });
    const err = await new Agent(driver, { threadStore: store })
      .thread("k")
      .run("x")
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe("driver exploded");
    await secondRunSucceeds(store);
  });

  it("fingerprint that cannot be serialised (a function in the driver config): ErrThreadIncompatible, lease never held", async () => {
    const store = new MemoryThreadStore();
    const driver = scriptedDriver(async () => ({ text: "never" }), { fingerprint: () => ({ onEvent: () => undefined }) });
    const err = await new Agent(driver, { threadStore: store })
      .thread("k")
      .run("x")
      .catch((e: unknown) => e);
    expect(isError(err, ErrThreadIncompatible)).toBe(true);
    expect(findError(err, SessionConfigFingerprintError)).toMatchObject({ path: "config.*.*", kind: "function" });
    expect(driver.requests).toHaveLength(0);
    await secondRunSucceeds(store);
  });

  it("fingerprint() that throws: ErrThreadIncompatible with the driver's error as cause, lease released", async () => {
    const store = new MemoryThreadStore();
    const broken = new Error("fingerprint exploded");
    const driver = scriptedDriver(async () => ({ text: "never" }), {
      fingerprint: () => {
        throw broken;
      },
    });
    const err = await new Agent(driver, { threadStore: store })
      .thread("k")
      .run("x")
      .catch((e: unknown) => e);
    expect(isError(err, ErrThreadIncompatible)).toBe(true);
    expect(walkError(err, (e) => e === broken)).toBe(true);
    await secondRunSucceeds(store);
  });

  it("store error in resolve: the run fails with the store error and the lease is released", async () => {
    const faults = new OneShotFault();
    const store = new MemoryThreadStore({ faults });
    faults.arm("resolve");
    const driver = healthyDriver();
    const err = await new Agent(driver, { threadStore: store })
      .thread("k")
      .run("x")
      .catch((e: unknown) => e);
    expect(walkError(err, (e) => e instanceof Error && e.message === "injected resolve failure")).toBe(true);
    expect(driver.requests).toHaveLength(0);
    await secondRunSucceeds(store);
  });

  it("store error in finalize (rolled back after the record was written): nothing committed, lease released", async () => {
    const faults = new FaultPlan();
    const store = new MemoryThreadStore({ faults });
    const injected = faults.failAfterFinalizeStep("record-written");
    const err = await new Agent(healthyDriver(), { threadStore: store })
      .thread("k")
      .run("x")
      .catch((e: unknown) => e);
    expect(walkError(err, (e) => e === injected)).toBe(true);
    expect(await store.resolve({ key: "k" })).toBeUndefined();
    await secondRunSucceeds(store);
  });

  it("resume rejected in resume-only mode: ErrResumeRejected and the lease is released", async () => {
    const store = new MemoryThreadStore();
    await new Agent(healthyDriver(), { threadStore: store }).thread("k").run("first");
    const rejecting = scriptedDriver(async () => ({ failure: { reason: "resume_rejected", message: "no such session" } }));
    const err = await new Agent(rejecting, { threadStore: store })
      .thread("k", { resumeOnly: true })
      .run("x")
      .catch((e: unknown) => e);
    expect(isError(err, ErrResumeRejected)).toBe(true);
    await secondRunSucceeds(store);
  });

  it("cancellation while the driver runs: the lease is released", async () => {
    const store = new MemoryThreadStore();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const driver = scriptedDriver(async (_r, _s, signal) => {
      started();
      return untilAborted(signal);
    });
    const stream = new Agent(driver, { threadStore: store }).thread("k").stream("x");
    await running;
    stream.cancel();
    expect(((await stream.result().catch((e: unknown) => e)) as Error).name).toBe("AbortError");
    await secondRunSucceeds(store);
  });

  it("cancellation while the store resolves the checkpoint (lease already held): the lease is released", async () => {
    const inner = new MemoryThreadStore();
    let resolving!: () => void;
    const inResolve = new Promise<void>((resolve) => (resolving = resolve));
    const hanging: ThreadStore = {
      resolve: (_q, signal) => {
        resolving();
        return untilAborted(signal!);
      },
      acquireLease: (t, o, ttl, s) => inner.acquireLease(t, o, ttl, s),
      renewLease: (l, ttl, s) => inner.renewLease(l, ttl, s),
      releaseLease: (l, s) => inner.releaseLease(l, s),
      finalize: (r, s) => inner.finalize(r, s),
      close: () => inner.close(),
    };
    const driver = healthyDriver();
    const stream = new Agent(driver, { threadStore: hanging }).thread("k").stream("x");
    await inResolve;
    stream.cancel();
    expect(((await stream.result().catch((e: unknown) => e)) as Error).name).toBe("AbortError");
    expect(driver.requests).toHaveLength(0);
    await secondRunSucceeds(inner);
  });

  it("agent close during the run: the verdict is ErrAgentClosed and the lease is released", async () => {
    const store = new MemoryThreadStore();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const driver = scriptedDriver(async (_r, _s, signal) => {
      started();
      return untilAborted(signal);
    });
    const agent = new Agent(driver, { threadStore: store });
    const stream = agent.thread("k").stream("x");
    await running;
    await agent.close();
    expect(isError(await stream.result().catch((e: unknown) => e), ErrAgentClosed)).toBe(true);
    await secondRunSucceeds(store);
  });

  it("a response hook that fails after the driver (invalid structured output): RunError, lease released", async () => {
    const store = new MemoryThreadStore();
    const base = scriptedDriver(async () => ({ text: "not json", checkpoint: { resumeId: "s1" } }));
    const capabilities = { ...base.descriptor.capabilities, structuredOutput: { native: false, prompt: true } };
    const driver = Object.assign(base, { descriptor: { ...base.descriptor, capabilities } });
    const err = await new Agent(driver, { threadStore: store })
      .thread("k")
      .run("x", { schemaJSON: { type: "object", properties: { a: { type: "string" } }, required: ["a"] } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect((err as RunError).reason).toBe("policy_violation");
    expect(await store.resolve({ key: "k" })).toBeUndefined();
    await secondRunSucceeds(store);
  });
  it("store error in release (one transient failure): the release is retried and a second run succeeds at once", async () => {
    const faults = new OneShotFault();
    const store = new MemoryThreadStore({ faults });
    faults.arm("releaseLease");
    expect((await new Agent(healthyDriver(), { threadStore: store }).thread("k").run("x")).text).toBe("ok:x");
    await secondRunSucceeds(store);
  });

  it("store error in release (backend down): the verdict stands and a lifecycle notice says the key stays busy", async () => {
    const inner = new MemoryThreadStore();
    const failingRelease: ThreadStore = {
      resolve: (q, s) => inner.resolve(q, s),
      acquireLease: (t, o, ttl, s) => inner.acquireLease(t, o, ttl, s),
      renewLease: (l, ttl, s) => inner.renewLease(l, ttl, s),
      releaseLease: () => Promise.reject(new Error("store unreachable")),
      finalize: (r, s) => inner.finalize(r, s),
      close: () => inner.close(),
    };
    const driver = scriptedDriver(async () => ({ failure: { reason: "agent_error", message: "boom" } }));
    const stream = new Agent(driver, { threadStore: failingRelease, leaseTtlMs: 5_000 }).thread("k").stream("x");
    const notices: string[] = [];
    for await (const event of stream) if (event.type === "notice" && event.kind === "lifecycle") notices.push(event.message ?? "");
    expect(((await stream.result().catch((e: unknown) => e)) as RunError).reason).toBe("agent_error");
    expect(notices).toEqual(["lease release failed; thread k stays busy until the lease expires (up to 5000 ms)"]);
  });
});

describe("a committed turn releases its lease in finalize", () => {
  /** `inner` behind a store that logs each call (`finalize` with its releaseLeases flag). */
  function logged(inner: ThreadStore, calls: string[], strip = false): ThreadStore {
    return {
      resolve: (q, s) => inner.resolve(q, s),
      acquireLease: (t, o, ttl, s) => (calls.push("acquireLease"), inner.acquireLease(t, o, ttl, s)),
      renewLease: (l, ttl, s) => inner.renewLease(l, ttl, s),
      releaseLease: (l, s) => (calls.push("releaseLease"), inner.releaseLease(l, s)),
      finalize: ({ releaseLeases, ...request }, s) => {
        calls.push(`finalize releaseLeases=${String(releaseLeases)}`);
        return inner.finalize(strip ? request : { ...request, releaseLeases }, s);
      },
      close: () => inner.close(),
    };
  }

  it("finalize is asked to release the lease, the turn's releaseLease follows as a no-op, and the key is free at once", async () => {
    const inner = new MemoryThreadStore();
    const calls: string[] = [];
    const store = logged(inner, calls);
    // Another worker may take the key as soon as finalize returned, before the turn's own releaseLease,
    // and that releaseLease leaves the other worker's lease alone.
    let other: Lease | undefined;
    const peek: ThreadStore = {
      ...store,
      releaseLease: async (l, s) => {
        other = await inner.acquireLease("k", "other-worker", 30_000);
        await store.releaseLease(l, s);
        await expect(inner.acquireLease("k", "third-worker", 30_000)).rejects.toBeInstanceOf(BusyError);
      },
    };
    expect((await new Agent(healthyDriver(), { threadStore: peek }).thread("k").run("x")).text).toBe("ok:x");
    expect(calls).toEqual(["acquireLease", "finalize releaseLeases=true", "releaseLease"]);
    await inner.releaseLease(other!);
    await secondRunSucceeds(inner);
  });

  it("a store that ignores releaseLeases: the turn's releaseLease frees the key", async () => {
    const inner = new MemoryThreadStore();
    const calls: string[] = [];
    const store = logged(inner, calls, true);
    expect((await new Agent(healthyDriver(), { threadStore: store }).thread("k").run("x")).text).toBe("ok:x");
    expect(calls).toEqual(["acquireLease", "finalize releaseLeases=true", "releaseLease"]);
    await secondRunSucceeds(inner);
  });

  it("a failed turn does not finalize: releaseLease gives the lease back", async () => {
    const inner = new MemoryThreadStore();
    const calls: string[] = [];
    const driver = scriptedDriver(async () => ({ failure: { reason: "agent_error", message: "boom" } }));
    const err = await new Agent(driver, { threadStore: logged(inner, calls) })
      .thread("k")
      .run("x")
      .catch((e: unknown) => e);
    expect((err as RunError).reason).toBe("agent_error");
    expect(calls).toEqual(["acquireLease", "releaseLease"]);
    await secondRunSucceeds(inner);
  });
});

describe("a thread turn's verdict agrees with what was persisted", () => {
  it("lease lost after the driver finished (renewal failed as the CLI returned): ErrThreadLeaseLost, not a success without a checkpoint", async () => {
    const inner = new MemoryThreadStore();
    await new Agent(healthyDriver(), { threadStore: inner }).thread("k").run("first");
    const before = await inner.resolve({ key: "k" });
    const failingRenewal: ThreadStore = {
      resolve: (q, s) => inner.resolve(q, s),
      acquireLease: (t, o, ttl, s) => inner.acquireLease(t, o, ttl, s),
      renewLease: () => Promise.reject(new Error("store unreachable")),
      releaseLease: (l, s) => inner.releaseLease(l, s),
      finalize: (r, s) => inner.finalize(r, s),
      close: () => inner.close(),
    };
    // The CLI finishes its turn; the lease loss lands just before the driver returns its success.
    const driver = scriptedDriver(async (request, _sink, signal) => {
      await untilAborted(signal).catch(() => undefined);
      return { text: "finished", checkpoint: { resumeId: request.session?.resumeId ?? "s9" } };
    });
    const err = await new Agent(driver, { threadStore: failingRenewal, leaseTtlMs: 60 })
      .thread("k")
      .run("second")
      .catch((e: unknown) => e);
    expect(isError(err, ErrThreadLeaseLost)).toBe(true);
    expect(await inner.resolve({ key: "k" })).toEqual(before);
  });

  it("cancelled after the driver finished, before the checkpoint was written: the verdict is the cancellation and nothing is written", async () => {
    const store = new MemoryThreadStore();
    let stream: ReturnType<ReturnType<Agent["thread"]>["stream"]> | undefined;
    const driver = scriptedDriver(async () => {
      stream!.cancel(); // the host cancels just as the CLI delivers its result
      return { text: "finished", checkpoint: { resumeId: "s1" } };
    });
    stream = new Agent(driver, { threadStore: store }).thread("k").stream("x");
    const verdict = await stream.result().catch((e: unknown) => e);
    expect((verdict as Error).name).toBe("AbortError");
    expect(await store.resolve({ key: "k" })).toBeUndefined();
    await secondRunSucceeds(store);
  });
});

describe("lease renewal under store faults", () => {
  it("one transient store error in renewal is retried: the run keeps its lease, commits, and a notice records the hiccup", async () => {
    const faults = new OneShotFault();
    const inner = new MemoryThreadStore({ faults });
    let renewals = 0;
    const renewedTwice = deferred();
    const counting: ThreadStore = {
      resolve: (q, s) => inner.resolve(q, s),
      acquireLease: (t, o, ttl, s) => inner.acquireLease(t, o, ttl, s),
      renewLease: (l, ttl, s) => {
        if (++renewals === 2) renewedTwice.resolve();
        return inner.renewLease(l, ttl, s);
      },
      releaseLease: (l, s) => inner.releaseLease(l, s),
      finalize: (r, s) => inner.finalize(r, s),
      close: () => inner.close(),
    };
    faults.arm("renewLease");
    // The driver runs across two renewals: the first fails (injected), the second succeeds.
    const driver = scriptedDriver(async (_r, _s, signal) => {
      await Promise.race([renewedTwice.promise, untilAborted(signal)]);
      return { text: "done", checkpoint: { resumeId: "s1" } };
    });
    const stream = new Agent(driver, { threadStore: counting, leaseTtlMs: 6_000 }).thread("k").stream("x");
    const notices: string[] = [];
    for await (const event of stream) if (event.type === "notice" && event.kind === "lifecycle") notices.push(event.message ?? "");
    expect((await stream.result()).text).toBe("done");
    expect(notices).toEqual(["lease renewal failed; retrying (thread k)"]);
    expect((await inner.resolve({ key: "k" }))?.checkpoint.resumeId).toBe("s1");
  });
});

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
