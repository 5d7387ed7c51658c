import type { MemoryThreadStore, ThreadStore } from "@adaptor/threadstore";
import { baseOnly } from "./base-store.js";

/**
 * `store` breaking finalize's both-or-neither from its second state write on: the record is
 * written, the session state stays as the first write left it (a record table and a separate
 * state store that lost the later writes). Its `summary` is left out, as an honest one would
 * match the stale state anyway.
 */
export function keepingOldState(store: MemoryThreadStore): ThreadStore {
  let writes = 0;
  return {
    ...baseOnly(store),
    sessionState: store.sessionState!,
    finalize: ({ sessionState, ...request }, signal) =>
      store.finalize({ ...request, ...(sessionState && ++writes === 1 ? { sessionState } : {}) }, signal),
  };
}
