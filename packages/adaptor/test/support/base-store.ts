import type { ThreadStore } from "@adaptor/threadstore";

/**
 * `store` with only the base contract (no optional capability), each call passed through; spread it
 * and add a capability of the test's own (a `sessionState` whose rows are gone, ...).
 */
export function baseOnly(store: ThreadStore): ThreadStore {
  return {
    resolve: (q, s) => store.resolve(q, s),
    acquireLease: (t, o, ttl, s) => store.acquireLease(t, o, ttl, s),
    renewLease: (l, ttl, s) => store.renewLease(l, ttl, s),
    releaseLease: (l, s) => store.releaseLease(l, s),
    finalize: (r, s) => store.finalize(r, s),
    close: () => store.close(),
  };
}
