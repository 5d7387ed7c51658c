import { describe, expect, it } from "vitest";
import type { Lease } from "../contract/lease.js";
import type { ThreadRecord } from "../contract/thread-record.js";
import type { FinalizeRequest, ResolveQuery, ThreadStore } from "../contract/thread-store.js";
import { AlreadyExistsError } from "../errors/already-exists-error.js";
import { BusyError } from "../errors/busy-error.js";
import { LeaseLostError } from "../errors/lease-lost-error.js";
import { MemoryThreadStore } from "../memory/memory-thread-store.js";
import {
  checkTwoInstanceAcquire,
  checkTwoInstanceCompareAndSet,
  checkTwoInstanceCreateIfAbsent,
  checkTwoInstanceFencedWrites,
} from "./two-instance-checks.js";

/** What two instances of {@link kvStore} share: the rows of a remote key-value backend. */
interface Backend {
  readonly leases: Map<string, { owner: string | undefined; token: number; expiresAtMs: number }>;
  readonly records: Map<string, ThreadRecord>;
  /** The backend's own transaction lock, when the store uses one. */
  tail: Promise<unknown>;
}

const roundTrip = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A store on an asynchronous backend whose every operation reads, makes a round trip, then writes,
 * inside a lock: the backend's lock (`lock: "backend"`, correct) or one per instance
 * (`lock: "instance"`: two instances interleave, the mistake the checks must catch).
 */
function kvStore(backend: Backend, lock: "backend" | "instance"): ThreadStore {
  const own = { tail: Promise.resolve() as Promise<unknown> };
  const holder = lock === "backend" ? backend : own;
  const serial = <T>(op: () => Promise<T>): Promise<T> => {
    const run = holder.tail.then(op, op);
    holder.tail = run.catch(() => undefined);
    return run;
  };
  const live = (lease: Lease): boolean => {
    const row = backend.leases.get(lease.target);
    return row?.owner === lease.owner && row.token === lease.token && Date.now() < row.expiresAtMs;
  };
  return {
    resolve: (query: ResolveQuery) =>
      serial(async () => {
        await roundTrip();
        const all = [...backend.records.values()];
        return "id" in query ? backend.records.get(query.id) : all.find((r) => r.key === query.key && r.status === "active");
      }),
    acquireLease: (target, owner, ttlMs) =>
      serial(async () => {
        const row = backend.leases.get(target);
        await roundTrip();
        if (row?.owner !== undefined && row.owner !== owner && Date.now() < row.expiresAtMs) throw new BusyError(target);
        const token = (row?.token ?? 0) + 1;
        backend.leases.set(target, { owner, token, expiresAtMs: Date.now() + ttlMs });
        return { target, owner, token, expiresAt: new Date(Date.now() + ttlMs) };
      }),
    renewLease: (lease, ttlMs) =>
      serial(async () => {
        if (!live(lease)) throw new LeaseLostError(lease.target);
        await roundTrip();
        backend.leases.set(lease.target, { owner: lease.owner, token: lease.token, expiresAtMs: Date.now() + ttlMs });
        return { ...lease, expiresAt: new Date(Date.now() + ttlMs) };
      }),
    releaseLease: (lease) =>
      serial(async () => {
        const row = backend.leases.get(lease.target);
        await roundTrip();
        if (row && row.owner === lease.owner && row.token === lease.token) row.owner = undefined;
      }),
    finalize: (request: FinalizeRequest) =>
      serial(async () => {
        for (const lease of request.leases) if (!live(lease)) throw new LeaseLostError(lease.target);
        await roundTrip();
        const { record } = request;
        const archived = request.archiveId === undefined ? undefined : backend.records.get(request.archiveId);
        const other = [...backend.records.values()].find(
          (r) => r.key === record.key && r.status === "active" && r.id !== record.id && r.id !== archived?.id,
        );
        // Like SQL over a network: the archive, the insert and the commit are round trips too.
        for (let step = 0; step < 3; step++) await roundTrip();
        if (other) throw new AlreadyExistsError(record.key);
        if (archived?.status === "active") backend.records.set(archived.id, { ...archived, status: "archived" });
        const stored = { ...record, revision: (backend.records.get(record.id)?.revision ?? 0) + 1 };
        backend.records.set(record.id, stored);
        return stored;
      }),
    close: async () => {},
  };
}

function pair(lock: "backend" | "instance"): [ThreadStore, ThreadStore] {
  const backend: Backend = { leases: new Map(), records: new Map(), tail: Promise.resolve() };
  return [kvStore(backend, lock), kvStore(backend, lock)];
}

const checks = {
  acquire: checkTwoInstanceAcquire,
  "create if absent": checkTwoInstanceCreateIfAbsent,
  "compare-and-set": checkTwoInstanceCompareAndSet,
  "fenced writes": checkTwoInstanceFencedWrites,
};

describe("the kit's two-instance races", () => {
  for (const [name, check] of Object.entries(checks)) {
    it(`${name}: passes two instances of a store that locks its backend, and two views of one memory store`, async () => {
      await check(...pair("backend"));
      const memory = new MemoryThreadStore();
      await check(memory, memory);
    });

    it(`${name}: fails two instances of a store that locks per instance`, async () => {
      await expect(check(...pair("instance"))).rejects.toThrow(/round \d+: (2|[3-9]) /);
    });
  }
});
