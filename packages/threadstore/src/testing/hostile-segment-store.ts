import type { Lease } from "../contract/lease.js";
import type { FinalizeRequest, ResolveQuery, ThreadStore } from "../contract/thread-store.js";
import type { ThreadRecord } from "../contract/thread-record.js";
import type { SessionStateStore, StoredSessionState } from "../session-state/session-state.js";
import type { SegmentSummary } from "../session-state/segment-summary.js";

/** What {@link hostileSegmentStore} does to one stored segment. */
export type SegmentDamage =
  /** Loses the segment. */
  | "drop"
  /** Keeps all but its last byte. */
  | "truncate"
  /** Swaps it with the segment after it. */
  | "swap";

/** Options of {@link hostileSegmentStore}. */
export interface HostileSegmentStoreOptions {
  /** What happens to the stored segment at {@link at}. */
  readonly damage: SegmentDamage;
  /** Index of the damaged segment (for `swap`: the first of the two). Default 0. */
  readonly at?: number;
  /** Keep the wrapped store's `sessionState.summary` (default true); false: a store without it. */
  readonly summary?: boolean;
}

/**
 * Wraps `inner` as a thread store that damages its history the way a faulty custom store would,
 * while still reporting the full count and length: the first append that finds the segment at
 * `at` (and, for `swap`, the one after it) stored damages it once and stores the rest as given,
 * and `sessionState.read` goes on answering the segment count and bytes an honest store would
 * hold. Every other call goes to `inner`, so `segments`, `segmentsFrom` and `summary` see the
 * damaged segments. For tests: a store's `summary` and the SDK's per-turn check must catch it.
 */
export function hostileSegmentStore(inner: ThreadStore, options: HostileSegmentStoreOptions): ThreadStore {
  const state = inner.sessionState;
  if (!state) throw new TypeError("hostileSegmentStore: the wrapped store has no sessionState capability");
  const at = options.at ?? 0;
  /** Per record: the count and bytes an honest store would report. */
  const claimed = new Map<string, { segments: number; bytes: number }>();
  let damaged = false;
  const sessionState: SessionStateStore = {
    read: async (recordId: string, signal?: AbortSignal): Promise<StoredSessionState | undefined> => {
      const found = await state.read(recordId, signal);
      const honest = claimed.get(recordId);
      return found && honest ? { ...found, ...honest } : found;
    },
    segments: (recordId: string, signal?: AbortSignal): Promise<Uint8Array[]> => state.segments(recordId, signal),
    ...(state.segmentsFrom ? { segmentsFrom: state.segmentsFrom.bind(state) } : {}),
    ...(state.summary && options.summary !== false
      ? { summary: (recordId: string, signal?: AbortSignal): Promise<SegmentSummary> => state.summary!(recordId, signal) }
      : {}),
  };
  return {
    resolve: (query: ResolveQuery, signal?: AbortSignal): Promise<ThreadRecord | undefined> => inner.resolve(query, signal),
    acquireLease: (target: string, owner: string, ttlMs: number, signal?: AbortSignal): Promise<Lease> =>
      inner.acquireLease(target, owner, ttlMs, signal),
    renewLease: (lease: Lease, ttlMs: number, signal?: AbortSignal): Promise<Lease> => inner.renewLease(lease, ttlMs, signal),
    releaseLease: (lease: Lease, signal?: AbortSignal): Promise<void> => inner.releaseLease(lease, signal),
    close: (): Promise<void> => inner.close(),
    sessionState,
    finalize: async (request: FinalizeRequest, signal?: AbortSignal): Promise<ThreadRecord> => {
      const write = request.sessionState;
      if (!write) return inner.finalize(request, signal);
      const id = request.record.id;
      const before = write.mode === "append" ? (claimed.get(id) ?? { segments: 0, bytes: 0 }) : { segments: 0, bytes: 0 };
      const honest = {
        segments: before.segments + write.segments.length,
        bytes: before.bytes + write.segments.reduce((sum, s) => sum + s.byteLength, 0),
      };
      let forward = request;
      if (!damaged && write.mode === "append") {
        const held = await state.segments(id, signal);
        if (held.length > at + (options.damage === "swap" ? 1 : 0)) {
          const kept = [...held];
          if (options.damage === "drop") kept.splice(at, 1);
          else if (options.damage === "truncate") kept[at] = kept[at]!.slice(0, Math.max(0, kept[at]!.byteLength - 1));
          else [kept[at], kept[at + 1]] = [kept[at + 1]!, kept[at]!];
          forward = { ...request, sessionState: { ...write, mode: "replace", segments: [...kept, ...write.segments] } };
          damaged = true;
        }
      }
      const written = await inner.finalize(forward, signal);
      claimed.set(id, honest);
      return written;
    },
  };
}
