import type { ThreadStore } from "../contract/thread-store.js";
import type { SessionStateWrite } from "../session-state/session-state.js";
import { segmentSummaryAfter, type SegmentSummary } from "../session-state/segment-summary.js";
import { record } from "./sample-record.js";

const LIMIT = 1_000_000;

/** `length` bytes, each `fill`. */
const filled = (length: number, fill: number): Uint8Array => new Uint8Array(length).fill(fill);

/**
 * Writes a history through `store` (a replace, appends, an empty append, a replace, more appends)
 * and after each write compares `sessionState.summary` with what the writes add up to
 * ({@link segmentSummaryAfter}); also that a record without state sums to zeros. Resolves `true`
 * when it checked, `false` for a store without `sessionState.summary`.
 * @throws Error naming the write after which the summary differs.
 */
export async function checkSegmentSummary(store: ThreadStore, key = "segment-summary"): Promise<boolean> {
  const state = store.sessionState;
  if (!state?.summary) return false;
  const zero: SegmentSummary = { segments: 0, bytes: 0, checksum: 0 };
  const same = (a: SegmentSummary, b: SegmentSummary): boolean =>
    a.segments === b.segments && a.bytes === b.bytes && a.checksum === b.checksum;
  const none = await state.summary("no-such-record");
  if (!same(none, zero)) throw new Error(`summary of a record without state: ${JSON.stringify(none)}, expected zeros`);
  const draft = record(key);
  const writes: Pick<SessionStateWrite, "mode" | "segments">[] = [
    // Two segments of one length: a swap keeps the count and bytes, only the checksum shows it.
    { mode: "replace", segments: [filled(10, 1), filled(10, 2)] },
    { mode: "append", segments: [filled(20, 3)] },
    { mode: "append", segments: [] },
    { mode: "append", segments: [filled(5, 4), filled(40, 5), new Uint8Array(0)] },
    { mode: "replace", segments: [filled(7, 6)] },
    { mode: "append", segments: [filled(3, 7), filled(11, 8)] },
  ];
  let expected: SegmentSummary | undefined;
  for (const [n, w] of writes.entries()) {
    const lease = await store.acquireLease(draft.key, "kit", 60_000);
    await store.finalize({
      leases: [lease],
      record: { ...draft, updatedAt: new Date(draft.updatedAt.getTime() + n) },
      sessionState: { ...w, manifest: { n }, limitBytes: LIMIT },
    });
    await store.releaseLease(lease);
    expected = segmentSummaryAfter(expected, w);
    const got = await state.summary(draft.id);
    if (!same(got, expected))
      throw new Error(
        `summary after write ${n} (${w.mode} of ${w.segments.length}): ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`,
      );
  }
  return true;
}

/**
 * Deletes the stored segment at `index` (0-based, in `segments()` order) of `recordId`'s session
 * state directly in the backend, beneath the store (a lost row, file or object), leaving everything
 * the store keeps beside the segments (counters, the manifest) as it is.
 */
export type LoseSegment = (recordId: string, index: number) => Promise<void>;

/**
 * Writes three segments of different lengths through `store`, has `lose` delete the middle one
 * beneath the store, and checks `sessionState.summary` now counts two segments and their bytes: a
 * store whose summary comes from counters kept beside the segments still reports three, and fails.
 * Resolves `true` when it checked, `false` for a store without `sessionState.summary`.
 * @throws Error saying what the summary reported after the loss.
 */
export async function checkSummarySeesLoss(store: ThreadStore, lose: LoseSegment, key = "segment-loss"): Promise<boolean> {
  const state = store.sessionState;
  if (!state?.summary) return false;
  const draft = record(key);
  const segments = [filled(10, 1), filled(20, 2), filled(30, 3)];
  await store.finalize({ leases: [], record: draft, sessionState: { mode: "replace", segments, manifest: {}, limitBytes: LIMIT } });
  const before = await state.summary(draft.id);
  await lose(draft.id, 1);
  const after = await state.summary(draft.id);
  if (after.segments !== 2 || after.bytes !== 40) {
    throw new Error(
      `summary after the second of 3 segments (10, 20, 30 bytes) was deleted beneath the store: ${JSON.stringify(after)} (before: ${JSON.stringify(before)}), expected 2 segments of 40 bytes: summary must be computed from the segments as stored, not from counters kept beside them`,
    );
  }
  return true;
}
