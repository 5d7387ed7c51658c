import { findError, walkError } from "@adaptor/errors";
import { describe, expect, it } from "vitest";
import type { Lease } from "../contract/lease.js";
import type { FinalizeRequest, ThreadStore } from "../contract/thread-store.js";
import type { ThreadRecordDraft } from "../contract/thread-record.js";
import { AlreadyExistsError } from "../errors/already-exists-error.js";
import { BusyError } from "../errors/busy-error.js";
import { LeaseLostError } from "../errors/lease-lost-error.js";
import { SessionStateTooLargeError } from "../errors/session-state-too-large-error.js";
import type { FaultPlan } from "./fault-plan.js";
import { checkLeaseReleasedByFinalizeLost } from "./released-lease-checks.js";

/** What the releasing-finalize block needs from the surrounding conformance suite, read per test. */
export interface ReleaseKitContext {
  store(): ThreadStore;
  faults(): FaultPlan;
  record(key: string, patch?: Partial<ThreadRecordDraft>): ThreadRecordDraft;
  rejection(promise: Promise<unknown>): Promise<unknown>;
  /** The store honours `releaseLeases` (else the kit checks it ignores it). */
  readonly honoured: boolean;
  /** The store has the session-state capability. */
  readonly sessionState: boolean;
}

const LONG_TTL = 60_000;

/** Registers the checks of `FinalizeRequest.releaseLeases`. */
export function describeReleaseConformance(ctx: ReleaseKitContext): void {
  /** `lease` is still held by its owner: another owner is busy, and the holder can renew it. */
  const stillHeld = async (lease: Lease): Promise<void> => {
    const store = ctx.store();
    await expect(store.acquireLease(lease.target, `${lease.owner}-rival`, LONG_TTL)).rejects.toBeInstanceOf(BusyError);
    expect((await store.renewLease(lease, LONG_TTL)).token).toBe(lease.token);
  };

  describe("finalize with releaseLeases", () => {
    it("a finalize with releaseLeases writes the record; after the holder's releaseLease another owner takes the key with a higher token", async () => {
      const store = ctx.store();
      const lease = await store.acquireLease("r-write", "owner-a", LONG_TTL);
      const rec = ctx.record("r-write");
      const written = await store.finalize({ leases: [lease], record: rec, releaseLeases: true });
      expect(written).toStrictEqual({ ...rec, revision: 1 });
      expect(await store.resolve({ key: "r-write" })).toStrictEqual({ ...rec, revision: 1 });
      await expect(store.releaseLease(lease)).resolves.toBeUndefined();
      await expect(store.releaseLease(lease)).resolves.toBeUndefined();
      const next = await store.acquireLease("r-write", "owner-b", LONG_TTL);
      expect(next.token).toBeGreaterThan(lease.token);
      // The old lease's releases did not free the new holder's lease.
      await expect(store.releaseLease(lease)).resolves.toBeUndefined();
      await stillHeld(next);
    });

    it("a finalize with releaseLeases that fails releases nothing: a lost lease of two leaves the other held, AlreadyExistsError leaves the lease held", async () => {
      const store = ctx.store();
      const kept = await store.acquireLease("r-kept", "owner-a", LONG_TTL);
      const stale = await store.acquireLease("r-stale", "owner-a", LONG_TTL);
      const current = await store.acquireLease("r-stale", "owner-a", LONG_TTL); // the first token goes stale
      const rec = ctx.record("r-kept");
      const lost = await ctx.rejection(store.finalize({ leases: [kept, stale], record: rec, releaseLeases: true }));
      expect(findError(lost, LeaseLostError)?.target).toBe("r-stale");
      expect(await store.resolve({ id: rec.id })).toBeUndefined();
      await stillHeld(kept);
      await stillHeld(current);

      await store.finalize({ leases: [], record: ctx.record("r-taken") });
      const taken = await store.acquireLease("r-taken", "owner-a", LONG_TTL);
      const second = ctx.record("r-taken");
      await expect(store.finalize({ leases: [taken], record: second, requireKeyAbsent: true, releaseLeases: true })).rejects.toBeInstanceOf(
        AlreadyExistsError,
      );
      await expect(store.finalize({ leases: [taken], record: second, releaseLeases: true })).rejects.toBeInstanceOf(AlreadyExistsError);
      expect(await store.resolve({ id: second.id })).toBeUndefined();
      await stillHeld(taken);
      if (ctx.sessionState) {
        const big = { mode: "replace" as const, segments: [new Uint8Array(64)], manifest: {}, limitBytes: 10 };
        const err = await ctx.rejection(store.finalize({ leases: [kept], record: rec, sessionState: big, releaseLeases: true }));
        expect(err).toBeInstanceOf(SessionStateTooLargeError);
        await stillHeld(kept);
      }
    });

    it("a backend fault inside a releasing finalize rolls the release back with the write; the retry under the same lease succeeds", async () => {
      const store = ctx.store();
      const lease = await store.acquireLease("r-fault", "owner-a", LONG_TTL);
      const rec = ctx.record("r-fault");
      const injected = ctx.faults().failAfterFinalizeStep("record-written");
      const err = await ctx.rejection(store.finalize({ leases: [lease], record: rec, releaseLeases: true }));
      expect(walkError(err, (node) => node === injected)).toBe(true);
      expect(await store.resolve({ id: rec.id })).toBeUndefined();
      await stillHeld(lease);
      expect((await store.finalize({ leases: [lease], record: rec, releaseLeases: true })).revision).toBe(1);
      await store.releaseLease(lease);
      expect((await store.acquireLease("r-fault", "owner-b", LONG_TTL)).token).toBeGreaterThan(lease.token);
    });

    if (ctx.honoured) {
      it("a finalize with releaseLeases releases every lease at once: another owner takes each target, the released lease can neither renew nor finalize, and its holder's releaseLease leaves the new holder's lease", async () => {
        const store = ctx.store();
        const a = await store.acquireLease("r-now-a", "owner-a", LONG_TTL);
        const b = await store.acquireLease("r-now-b", "owner-a", LONG_TTL);
        const rec = ctx.record("r-now-a");
        await store.finalize({ leases: [a, b], record: rec, releaseLeases: true });
        const nextA = await store.acquireLease("r-now-a", "owner-b", LONG_TTL);
        const nextB = await store.acquireLease("r-now-b", "owner-b", LONG_TTL);
        expect(nextA.token).toBeGreaterThan(a.token);
        expect(nextB.token).toBeGreaterThan(b.token);
        await expect(store.renewLease(a, LONG_TTL)).rejects.toBeInstanceOf(LeaseLostError);
        await expect(store.finalize({ leases: [a], record: { ...rec, checkpoint: { resumeId: "late" } } })).rejects.toBeInstanceOf(
          LeaseLostError,
        );
        await store.releaseLease(a);
        await store.releaseLease(b);
        await stillHeld(nextA);
        await stillHeld(nextB);
        expect((await store.resolve({ key: "r-now-a" }))?.checkpoint).toStrictEqual(rec.checkpoint);
      });

      it("a lease released by a finalize with releaseLeases can neither renew nor finalize again (LeaseLostError, nothing written), even while no other owner took its key", async () => {
        await checkLeaseReleasedByFinalizeLost(ctx.store(), "r-released");
      });

      it("a releaseLeases that is not a boolean is refused with a TypeError, writing and releasing nothing", async () => {
        const store = ctx.store();
        const lease = await store.acquireLease("r-malformed", "owner-a", LONG_TTL);
        const rec = ctx.record("r-malformed");
        for (const flag of ["yes", 1, null]) {
          const malformed = { leases: [lease], record: rec, releaseLeases: flag } as unknown as FinalizeRequest;
          await expect(store.finalize(malformed)).rejects.toBeInstanceOf(TypeError);
        }
        expect(await store.resolve({ id: rec.id })).toBeUndefined();
        await stillHeld(lease);
      });

      it("after a releasing finalize the same owner takes the key again with a higher token, and releasing that new lease really releases it", async () => {
        const store = ctx.store();
        const first = await store.acquireLease("r-again", "owner-a", LONG_TTL);
        const rec = ctx.record("r-again");
        await store.finalize({ leases: [first], record: rec, releaseLeases: true });
        const second = await store.acquireLease("r-again", "owner-a", LONG_TTL);
        expect(second.token).toBeGreaterThan(first.token);
        await store.releaseLease(first); // the released one: a no-op
        await stillHeld(second);
        await store.releaseLease(second);
        const third = await store.acquireLease("r-again", "owner-b", LONG_TTL);
        expect(third.token).toBeGreaterThan(second.token);
        await store.releaseLease(first);
        await store.releaseLease(second);
        await stillHeld(third);
      });

      if (ctx.sessionState) {
        it("a releasing finalize with session state writes the record and the state and releases the lease", async () => {
          const store = ctx.store();
          const lease = await store.acquireLease("r-state", "owner-a", LONG_TTL);
          const rec = ctx.record("r-state");
          const state = { mode: "append" as const, segments: [Uint8Array.of(1, 2, 3)], manifest: { v: 1 }, limitBytes: 1_000 };
          expect((await store.finalize({ leases: [lease], record: rec, sessionState: state, releaseLeases: true })).revision).toBe(1);
          expect(await store.sessionState?.read(rec.id)).toStrictEqual({ manifest: { v: 1 }, segments: 1, bytes: 3 });
          expect((await store.acquireLease("r-state", "owner-b", LONG_TTL)).token).toBeGreaterThan(lease.token);
        });
      }
    } else {
      it("the store does not claim releaseLeases: after a finalize with it the lease stays held until releaseLease", async () => {
        const store = ctx.store();
        const lease = await store.acquireLease("r-ignored", "owner-a", LONG_TTL);
        await store.finalize({ leases: [lease], record: ctx.record("r-ignored"), releaseLeases: true });
        await stillHeld(lease);
        await store.releaseLease(lease);
        expect((await store.acquireLease("r-ignored", "owner-b", LONG_TTL)).owner).toBe("owner-b");
      });
    }
  });
}
