import type { ThreadStore } from "@adaptor/threadstore";

/**
 * The thread store a fleet worker's Agent uses: the same store, except that every lease is taken by
 * one owner for the whole fleet (`owner`). The fleet's queue already runs one turn per thread key
 * at a time across every host, so the lease only has to fence: an attempt retried after its worker
 * died takes the key's lease at once (the store's fencing token moves on, so the dead attempt can
 * never commit) instead of waiting for the dead worker's lease to expire.
 */
export function fleetLeaseStore<S extends ThreadStore>(store: S, owner: string): S {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === "acquireLease") {
        return (key: string, _owner: string, ttlMs: number, signal?: AbortSignal) => target.acquireLease(key, owner, ttlMs, signal);
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
