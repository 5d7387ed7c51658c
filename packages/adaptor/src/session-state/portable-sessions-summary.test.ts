import { describe, expect, it } from "vitest";
import type { SessionLocation } from "@adaptor/driver";
import { findError, isError } from "@adaptor/errors";
import { MemoryThreadStore, type SessionStateWrite, type ThreadStore } from "@adaptor/threadstore";
import { hostileSegmentStore, type SegmentDamage } from "@adaptor/threadstore/testing";
import { SliceHome, sessionRecord } from "../../test/support/fake-session-home.js";
import { ErrThreadSessionCorrupt } from "../errors/sentinels.js";
import { ThreadSessionError } from "../errors/thread-session-error.js";
import { PortableSessions, type SessionCapture } from "./portable-sessions.js";

const where: SessionLocation = { resumeId: "s-1" };

function written(capture: SessionCapture): SessionStateWrite {
  if (capture.kind !== "write") throw new Error(`expected a write, got ${capture.kind}`);
  return capture.write;
}

/** Lines of three turns, of different lengths so their gzip segments differ in length too. */
const TURNS = ["one\n", "two: a longer line than the first\n", "three: and a third, longer still than the second, line\n"];

/** Commits {@link TURNS} through `store` from `home` (as one host's turns): one segment a turn. */
async function threeTurns(store: Pick<ThreadStore, "sessionState" | "finalize">, home: SliceHome): Promise<PortableSessions> {
  const portable = new PortableSessions(store.sessionState!, home, 1_000_000, "k");
  let text = "";
  for (const line of TURNS) {
    text += line;
    home.files.set("t.jsonl", Buffer.from(text));
    const write = written(await portable.capture(await store.sessionState!.read("rec-1"), where));
    await store.finalize({ leases: [], record: sessionRecord(), sessionState: write });
  }
  return portable;
}

describe("PortableSessions: the store's segment summary, checked when a turn begins", () => {
  for (const damage of ["drop", "truncate", "swap"] as const satisfies readonly SegmentDamage[]) {
    it(`a store that did ${damage} an old segment but reports the full count and length fails the turn's restore on the host that holds the session (ErrThreadSessionCorrupt), before the CLI continues`, async () => {
      const store = hostileSegmentStore(new MemoryThreadStore(), { damage });
      const home = new SliceHome();
      const portable = await threeTurns(store, home);
      const stored = (await store.sessionState!.read("rec-1"))!;
      // The loss is invisible to the counts: the store still reports three segments.
      expect(stored.segments).toBe(3);
      const err = await portable.restore("rec-1", stored, where).catch((e: unknown) => e);
      const typed = findError(err, ThreadSessionError);
      expect(typed).toMatchObject({ reason: "damaged", key: "k" });
      expect(typed!.message).toContain("a stored segment was lost, shortened or reordered");
      expect(isError(err, ErrThreadSessionCorrupt)).toBe(true);
      // Nothing of this host's copy was replaced.
      expect(home.files.get("t.jsonl")?.toString()).toBe(TURNS.join(""));
      expect(home.imports).toBe(0);
    });

    it(`without the store's summary, the ${damage} goes unseen on the host that holds the session: the turn continues from its copy`, async () => {
      const store = hostileSegmentStore(new MemoryThreadStore(), { damage, summary: false });
      const home = new SliceHome();
      const portable = await threeTurns(store, home);
      expect(await portable.restore("rec-1", (await store.sessionState!.read("rec-1"))!, where)).toBe("local");
      // Another host, restoring the segments, is where it surfaces.
      const other = new PortableSessions(store.sessionState!, new SliceHome(), 1_000_000, "k");
      const err = await other.restore("rec-1", (await store.sessionState!.read("rec-1"))!, where).catch((e: unknown) => e);
      expect(isError(err, ErrThreadSessionCorrupt)).toBe(true);
    });
  }

  it("an honest store passes the check and a warm turn reads no segment: the manifest carries what each write left", async () => {
    const inner = new MemoryThreadStore();
    let segmentReads = 0;
    const state = inner.sessionState!;
    const counted = {
      ...state,
      segments: (id: string) => (segmentReads++, state.segments(id)),
      segmentsFrom: (id: string, from: number) => (segmentReads++, state.segmentsFrom!(id, from)),
    };
    const home = new SliceHome();
    const portable = await threeTurns({ sessionState: counted, finalize: (request) => inner.finalize(request) }, home);
    const stored = (await counted.read("rec-1"))!;
    expect((stored.manifest as { stored?: unknown }).stored).toEqual(await state.summary!("rec-1"));
    expect(await portable.restore("rec-1", stored, where)).toBe("local");
    expect(segmentReads).toBe(0);
  });

  it("a manifest of an earlier version (no summary in it) is checked by count and bytes, and the next write's manifest carries the summary again", async () => {
    const store = new MemoryThreadStore();
    const home = new SliceHome();
    await threeTurns(store, home);
    const now = (await store.sessionState!.read("rec-1"))!;
    const { stored: _dropped, ...older } = now.manifest as Record<string, unknown>;
    await store.finalize({
      leases: [],
      record: sessionRecord(),
      sessionState: { mode: "append", segments: [], manifest: older, limitBytes: 1_000_000 },
    });
    const stored = (await store.sessionState!.read("rec-1"))!;
    const portable = new PortableSessions(store.sessionState!, home, 1_000_000, "k");
    expect(await portable.restore("rec-1", stored, where)).toBe("local");
    home.files.set("t.jsonl", Buffer.from(TURNS.join("") + "four\n"));
    const next = written(await portable.capture(stored, where));
    expect(next.mode).toBe("append");
    await store.finalize({ leases: [], record: sessionRecord(), sessionState: next });
    expect((next.manifest as { stored?: unknown }).stored).toEqual(await store.sessionState!.summary!("rec-1"));
    // A loss in such a record is still caught by count and bytes.
    const lossy = { ...store.sessionState!, summary: async () => ({ segments: 3, bytes: 1, checksum: 1 }) };
    const err = await new PortableSessions(lossy, home, 1_000_000, "k").restore("rec-1", stored, where).catch((e: unknown) => e);
    expect(isError(err, ErrThreadSessionCorrupt)).toBe(true);
  });
});
