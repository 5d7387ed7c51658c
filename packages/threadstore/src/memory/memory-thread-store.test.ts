import { DriverError, ErrCode } from "@adaptor/errors";
import { describe, expect, it } from "vitest";
import { describeSegmentsFromConformance, describeThreadStoreConformance, ManualClock } from "../testing/index.js";
import type { ThreadStore } from "../contract/thread-store.js";
import { MemoryThreadStore } from "./memory-thread-store.js";

describeThreadStoreConformance(
  "memory",
  async ({ faults, broken }) => {
    const clock = new ManualClock();
    if (broken) faults.failEveryOperation(new Error("memory backend unavailable (injected)"));
    return { store: new MemoryThreadStore({ now: clock.now, faults }), clock };
  },
  { sessionState: true, releaseLeases: true },
);

describeSegmentsFromConformance("memory", async ({ faults }) => {
  const clock = new ManualClock();
  return { store: new MemoryThreadStore({ now: clock.now, faults }), clock };
});

describeThreadStoreConformance(
  "memory without session state",
  async ({ faults, broken }) => {
    const clock = new ManualClock();
    if (broken) faults.failEveryOperation(new Error("memory backend unavailable (injected)"));
    return { store: new MemoryThreadStore({ now: clock.now, faults, sessionState: false }), clock };
  },
  { releaseLeases: true },
);

// A store written before `releaseLeases` existed passes the kit too: it ignores the flag.
describeThreadStoreConformance("a store that ignores releaseLeases", async ({ faults, broken }) => {
  const clock = new ManualClock();
  if (broken) faults.failEveryOperation(new Error("memory backend unavailable (injected)"));
  const inner = new MemoryThreadStore({ now: clock.now, faults, sessionState: false });
  const store: ThreadStore = {
    resolve: (query, signal) => inner.resolve(query, signal),
    acquireLease: (target, owner, ttlMs, signal) => inner.acquireLease(target, owner, ttlMs, signal),
    renewLease: (lease, ttlMs, signal) => inner.renewLease(lease, ttlMs, signal),
    releaseLease: (lease, signal) => inner.releaseLease(lease, signal),
    finalize: ({ releaseLeases: _ignored, ...request }, signal) => inner.finalize(request, signal),
    close: () => inner.close(),
  };
  return { store, clock };
});

// A backend that answers asynchronously, so its failures arrive out of call order: every read of
// the broken store fails after an event-loop turn, `read()` (two round trips) after two.
// The kit must handle every rejection at once (an unhandled one fails the implementer's run).
describeThreadStoreConformance(
  "a broken backend that fails its reads out of order",
  async ({ faults, broken }) => {
    const clock = new ManualClock();
    const inner = new MemoryThreadStore({ now: clock.now, faults });
    if (!broken) return { store: inner, clock };
    const fail = (op: string, turns = 1): Promise<never> =>
      new Promise((resolve) => setImmediate(resolve)).then(() =>
        turns > 1
          ? fail(op, turns - 1)
          : Promise.reject(new DriverError({ op, device: "async-store", code: ErrCode.Internal, cause: new Error("ECONNRESET") })),
      );
    const store: ThreadStore = {
      resolve: () => fail("resolve"),
      acquireLease: () => fail("acquireLease"),
      renewLease: () => fail("renewLease"),
      releaseLease: () => fail("releaseLease"),
      finalize: () => fail("finalize"),
      close: () => inner.close(),
      sessionState: {
        read: () => fail("read", 2),
        segments: () => fail("segments"),
        summary: () => fail("summary"),
      },
    };
    return { store, clock };
  },
  { sessionState: true, releaseLeases: true },
);

describe("MemoryThreadStore", () => {
  it("returns copies: mutating a resolved record or its checkpoint data does not change the store", async () => {
    const store = new MemoryThreadStore();
    const data = { turns: 1 };
    const rec = {
      id: "r1",
      key: "k",
      status: "active" as const,
      driverType: "claude",
      identity: "u",
      fingerprint: "f",
      codec: "json/v1",
      checkpoint: { resumeId: "s1", data },
      createdAt: new Date(0),
      updatedAt: new Date(0),
    };
    await store.finalize({ leases: [], record: rec });
    data.turns = 99;
    const got = await store.resolve({ id: "r1" });
    (got?.checkpoint.data as { turns: number }).turns = 42;
    expect((await store.resolve({ id: "r1" }))?.checkpoint.data).toEqual({ turns: 1 });
  });

  it("stamps updatedAt of an archived record with the injected clock", async () => {
    const clock = new ManualClock(new Date("2030-05-05T10:00:00.000Z"));
    const store = new MemoryThreadStore({ now: clock.now });
    const base = {
      driverType: "claude",
      identity: "u",
      fingerprint: "f",
      codec: "json/v1",
      checkpoint: { resumeId: "s" },
      createdAt: new Date(0),
      updatedAt: new Date(0),
    };
    await store.finalize({ leases: [], record: { ...base, id: "a", key: "k", status: "active" } });
    clock.advance(1_500);
    await store.finalize({ leases: [], record: { ...base, id: "b", key: "k", status: "active" }, archiveId: "a" });
    expect((await store.resolve({ id: "a" }))?.updatedAt.toISOString()).toBe("2030-05-05T10:00:01.500Z");
  });

  it("judges expiry by the injected clock, not the wall clock", async () => {
    const clock = new ManualClock();
    const store = new MemoryThreadStore({ now: clock.now });
    const lease = await store.acquireLease("t", "a", 50);
    expect(lease.expiresAt.toISOString()).toBe("2026-01-01T00:00:00.050Z");
    await new Promise((r) => setTimeout(r, 80));
    await expect(store.acquireLease("t", "b", 50)).rejects.toThrow("lease busy: t");
  });
});
