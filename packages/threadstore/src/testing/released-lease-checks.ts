import type { Lease } from "../contract/lease.js";
import type { ThreadRecordDraft } from "../contract/thread-record.js";
import type { ThreadStore } from "../contract/thread-store.js";
import { LeaseLostError } from "../errors/lease-lost-error.js";
import { record } from "./sample-record.js";

const TTL = 60_000;

/**
 * `call` must reject with `LeaseLostError`; else throws an `Error` saying what `what` did
 * instead and that a released lease is lost.
 */
async function expectLost(what: string, call: Promise<unknown>): Promise<void> {
  const outcome = await call.then(
    () => "resolved",
    (error: unknown) => (error instanceof LeaseLostError ? undefined : error),
  );
  if (outcome === undefined) return;
  const got = outcome === "resolved" ? "resolved" : `rejected with ${String(outcome)}`;
  throw new Error(`${what} ${got}, expected LeaseLostError: a released lease is lost even while nobody else took its key`, {
    ...(outcome === "resolved" ? {} : { cause: outcome }),
  });
}

/**
 * The lease `released` can neither renew nor finalize (each `LeaseLostError`, the finalize writing
 * nothing), and another owner then takes its key: a released lease does not come back, even
 * while nobody else took the key. `how` says how it was released, for the messages; `written` is
 * the record it finalized, if any, which the late finalize would update.
 */
async function checkReleased(store: ThreadStore, released: Lease, how: string, written?: ThreadRecordDraft): Promise<void> {
  await expectLost(`renewLease of a lease after ${how}`, store.renewLease(released, TTL));
  const late = written ? { ...written, checkpoint: { resumeId: "late" } } : record(released.target);
  await expectLost(`finalize with a lease after ${how}`, store.finalize({ leases: [released], record: late }));
  const stored = await store.resolve({ id: late.id });
  if (stored?.checkpoint.resumeId === "late" || (!written && stored))
    throw new Error(`finalize with a lease after ${how} wrote its record`);
  const next = await store.acquireLease(released.target, `${released.owner}-next`, TTL);
  await store.releaseLease(next);
}

/**
 * Acquires `target`, releases the lease with `releaseLease`, then checks that the released lease
 * neither renews nor finalizes (`LeaseLostError`, nothing written) though no other owner took the
 * key, and that another owner can take it after. Throws an `Error` saying which call did what.
 */
export async function checkReleasedLeaseLost(store: ThreadStore, target: string): Promise<void> {
  const lease = await store.acquireLease(target, "owner-a", TTL);
  await store.releaseLease(lease);
  await checkReleased(store, lease, "its releaseLease");
}

/**
 * For a store that honours `releaseLeases`: acquires `target`, finalizes a record with
 * `releaseLeases: true`, then checks that the released lease neither renews nor finalizes again
 * (`LeaseLostError`, nothing written) though no other owner took the key, and that another owner
 * can take it after. Throws an `Error` saying which call did what.
 */
export async function checkLeaseReleasedByFinalizeLost(store: ThreadStore, target: string): Promise<void> {
  const lease = await store.acquireLease(target, "owner-a", TTL);
  const written = record(target);
  await store.finalize({ leases: [lease], record: written, releaseLeases: true });
  await checkReleased(store, lease, "a finalize with releaseLeases", written);
}
