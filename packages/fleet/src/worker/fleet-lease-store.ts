import type { FinalizeRequest, ThreadRecordDraft, ThreadStore } from "@adaptor/threadstore";

/**
 * Wraps the commit of a thread turn (see `FleetTables.guardCommit`): `record` is what it writes,
 * `commit` runs the store's finalize.
 */
export type CommitGuard = <T>(record: ThreadRecordDraft, commit: () => Promise<T>) => Promise<T>;

/**
 * The owner under which every worker of one fleet takes thread leases: the fleet's schema and queue
 * (what names its pg-boss queue), so that another fleet sharing the thread store is refused busy
 * while this one holds a key, instead of taking the lease over as a retry of its own would.
 */
export function fleetLeaseOwner(schema: string, queue: string): string {
  return `adaptor-fleet/${schema}/${queue}`;
}

/**
 * The thread store a fleet worker's Agent uses: the same store, except that
 *
 * - every lease is taken by one owner for the whole fleet (`owner`, see {@link fleetLeaseOwner}). The
 *   fleet's queue already runs one turn per thread key at a time across every host, so within the
 *   fleet the lease only has to fence (another fleet, or an Agent outside it, is refused busy): an attempt
 *   retried after its worker died takes the key's lease at once (the store's fencing token moves
 *   on, so the dead attempt can never commit) instead of waiting for the lost lease to expire;
 * - a turn's commit (`finalize`) goes through `guard`, which records it on the fleet's run in the
 *   same transaction, so a cancellation and a commit never both win.
 */
export function fleetLeaseStore<S extends ThreadStore>(store: S, owner: string, guard: CommitGuard): S {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === "acquireLease") {
        return (key: string, _owner: string, ttlMs: number, signal?: AbortSignal) => target.acquireLease(key, owner, ttlMs, signal);
      }
      if (property === "finalize") {
        return (request: FinalizeRequest, signal?: AbortSignal) => guard(request.record, () => target.finalize(request, signal));
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
