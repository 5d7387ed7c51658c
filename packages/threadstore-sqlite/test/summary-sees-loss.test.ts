import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { segmentSummaryAfter, type SegmentSummary, type ThreadStore } from "@adaptor/threadstore";
import { checkSummarySeesLoss } from "@adaptor/threadstore/testing";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import { loseSegmentRow } from "./support/lose-segment.js";

const dir = mkdtempSync(join(tmpdir(), "adaptor-sqlite-loss-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `inner`, but its summary comes from counters updated with every write, as a custom store might keep them. */
function counterSummary(inner: ThreadStore): ThreadStore {
  const state = inner.sessionState!;
  const counters = new Map<string, SegmentSummary>();
  return {
    resolve: (query, signal) => inner.resolve(query, signal),
    acquireLease: (target, owner, ttlMs, signal) => inner.acquireLease(target, owner, ttlMs, signal),
    renewLease: (lease, ttlMs, signal) => inner.renewLease(lease, ttlMs, signal),
    releaseLease: (lease, signal) => inner.releaseLease(lease, signal),
    finalize: async (request, signal) => {
      const stored = await inner.finalize(request, signal);
      if (request.sessionState) counters.set(stored.id, segmentSummaryAfter(counters.get(stored.id), request.sessionState));
      return stored;
    },
    sessionState: {
      read: (id, signal) => state.read(id, signal),
      segments: (id, signal) => state.segments(id, signal),
      summary: async (id) => counters.get(id) ?? { segments: 0, bytes: 0, checksum: 0 },
    },
    close: () => inner.close(),
  };
}

describe("the kit's lost-segment summary case", () => {
  it("passes the SQLite store, whose summary adds up the stored rows", async () => {
    const path = join(dir, "honest.db");
    const store = new SqliteThreadStore({ path });
    try {
      expect(await checkSummarySeesLoss(store, loseSegmentRow(path))).toBe(true);
    } finally {
      await store.close();
    }
  });

  it("fails a store whose summary comes from counters kept beside the segments", async () => {
    const path = join(dir, "counters.db");
    const store = counterSummary(new SqliteThreadStore({ path }));
    try {
      await expect(checkSummarySeesLoss(store, loseSegmentRow(path))).rejects.toThrow(
        /"segments":3,"bytes":60.*expected 2 segments of 40 bytes/,
      );
    } finally {
      await store.close();
    }
  });
});
