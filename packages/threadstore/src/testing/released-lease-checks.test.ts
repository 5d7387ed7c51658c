import { describe, expect, it } from "vitest";
import type { Lease } from "../contract/lease.js";
import type { FinalizeRequest, ThreadStore } from "../contract/thread-store.js";
import { MemoryThreadStore } from "../memory/memory-thread-store.js";
import { checkLeaseReleasedByFinalizeLost, checkReleasedLeaseLost } from "./released-lease-checks.js";

/**
 * A memory store with the mistake the checks must catch: a released lease (by `releaseLease` or a
 * finalize with `releaseLeases`) comes back in `revives` (renewLease or finalize) as long as no
 * other owner took its key, by taking the key again for the same owner behind the caller's back.
 */
function reviving(revives: "renewLease" | "finalize"): ThreadStore {
  const inner = new MemoryThreadStore();
  const released = new Set<string>();
  const id = (lease: Lease): string => `${lease.target}#${lease.token}`;
  const revive = async (lease: Lease): Promise<Lease> =>
    released.has(id(lease)) ? inner.acquireLease(lease.target, lease.owner, 60_000) : lease;
  return {
    resolve: (query, signal) => inner.resolve(query, signal),
    acquireLease: (target, owner, ttlMs, signal) => inner.acquireLease(target, owner, ttlMs, signal),
    renewLease: async (lease, ttlMs, signal) => {
      if (revives !== "renewLease") return inner.renewLease(lease, ttlMs, signal);
      const renewed = await inner.renewLease(await revive(lease), ttlMs, signal);
      return { ...lease, expiresAt: renewed.expiresAt };
    },
    releaseLease: async (lease, signal) => {
      await inner.releaseLease(lease, signal);
      released.add(id(lease));
    },
    finalize: async (request: FinalizeRequest, signal) => {
      const leases = revives === "finalize" ? await Promise.all(request.leases.map(revive)) : request.leases;
      const written = await inner.finalize({ ...request, leases }, signal);
      if (request.releaseLeases) for (const lease of request.leases) released.add(id(lease));
      return written;
    },
    close: () => inner.close(),
  };
}

describe("the kit's released-lease checks", () => {
  it("pass the memory store", async () => {
    const store = new MemoryThreadStore();
    await checkReleasedLeaseLost(store, "k1");
    await checkLeaseReleasedByFinalizeLost(store, "k2");
  });

  it("fail a store whose released lease still renews, naming the call and the expected LeaseLostError", async () => {
    await expect(checkReleasedLeaseLost(reviving("renewLease"), "k")).rejects.toThrow(
      "renewLease of a lease after its releaseLease resolved, expected LeaseLostError: a released lease is lost even while nobody else took its key",
    );
    await expect(checkLeaseReleasedByFinalizeLost(reviving("renewLease"), "k")).rejects.toThrow(
      "renewLease of a lease after a finalize with releaseLeases resolved, expected LeaseLostError",
    );
  });

  it("fail a store whose released lease still finalizes", async () => {
    await expect(checkReleasedLeaseLost(reviving("finalize"), "k")).rejects.toThrow(
      "finalize with a lease after its releaseLease resolved, expected LeaseLostError",
    );
    await expect(checkLeaseReleasedByFinalizeLost(reviving("finalize"), "k")).rejects.toThrow(
      "finalize with a lease after a finalize with releaseLeases resolved, expected LeaseLostError",
    );
  });
});
