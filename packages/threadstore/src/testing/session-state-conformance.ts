import { findError, isError, walkError } from "@adaptor/errors";
import { describe, expect, it } from "vitest";
import type { Lease } from "../contract/lease.js";
import type { ThreadRecordDraft } from "../contract/thread-record.js";
import type { ThreadStore } from "../contract/thread-store.js";
import { AlreadyExistsError } from "../errors/already-exists-error.js";
import { LeaseLostError } from "../errors/lease-lost-error.js";
import { SessionStateTooLargeError } from "../errors/session-state-too-large-error.js";
import { ErrBusy, ErrLeaseLost, ErrSessionStateTooLarge } from "../errors/sentinels.js";
import type { SessionStateStore, SessionStateWrite } from "../session-state/session-state.js";
import type { FaultPlan } from "./fault-plan.js";
import { checkSegmentSummary, checkSummarySeesLoss, type LoseSegment } from "./segment-summary-check.js";
import { rejections } from "./rejections.js";

/** What the session-state block needs from the surrounding conformance suite, read per test. */
export interface SessionStateKitContext {
  store(): ThreadStore;
  /** The harness's `loseSegment`, when it has one. */
  loseSegment(): LoseSegment | undefined;
  faults(): FaultPlan;
  brokenStore(): Promise<ThreadStore>;
  lapsingTtl(): number;
  elapse(ttl: number): Promise<void>;
  record(key: string, patch?: Partial<ThreadRecordDraft>): ThreadRecordDraft;
  rejection(promise: Promise<unknown>): Promise<unknown>;
}

const LONG_TTL = 60_000;
const LIMIT = 1_000_000;

/** Every byte value, so a backend that treats segments as text fails the round trip. */
const ALL_BYTES = Uint8Array.from({ length: 256 }, (_, i) => i);

function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function write(mode: SessionStateWrite["mode"], segments: Uint8Array[], manifest: unknown, limitBytes = LIMIT): SessionStateWrite {
  return { mode, segments, manifest, limitBytes };
}

/** How many finalizes {@link longHistory} is appended over, and how many segments each adds. */
export const LONG_TURNS = 12;
export const LONG_PER_TURN = 5;
/** The limit the long-history writes declare: 8 MB, well above the 1.2 MB they hold. */
export const LONG_LIMIT = 8_000_000;

/**
 * {@link LONG_TURNS} × {@link LONG_PER_TURN} segments of 15–25 kB each (about 1.2 MB in all), of
 * pseudo-random bytes that differ from segment to segment, so a store that keeps only the newest
 * segments, or the newest bytes, or reorders them, reads back something else.
 */
export function longHistory(): Uint8Array[] {
  let x = 0x9e3779b9;
  return Array.from({ length: LONG_TURNS * LONG_PER_TURN }, (_, i) => {
    const segment = new Uint8Array(15_000 + ((i * 7_919) % 10_000));
    for (let j = 0; j < segment.length; j++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      segment[j] = x & 0xff;
    }
    return segment;
  });
}

/**
 * Checks that record `recordId`'s session state holds exactly `expected` (with `manifest`) through
 * every read the capability has: `read` (count and bytes), `segments`, and `segmentsFrom` (when the
 * store has it) from the first, the second, a middle, the last and the end index.
 */
export async function expectHistory(
  state: SessionStateStore,
  recordId: string,
  expected: readonly Uint8Array[],
  manifest: unknown,
): Promise<void> {
  const total = expected.reduce((sum, s) => sum + s.byteLength, 0);
  expect(await state.read(recordId)).toStrictEqual({ manifest, segments: expected.length, bytes: total });
  const same = (got: readonly Uint8Array[], from: number): { from: number; count: number; differ: number[] } => ({
    from,
    count: got.length,
    differ: got.flatMap((s, i) =>
      Buffer.from(s).equals(expected[from + i] ?? new Uint8Array(0)) && s.byteLength === expected[from + i]?.byteLength ? [] : [from + i],
    ),
  });
  expect(same(await state.segments(recordId), 0)).toStrictEqual({ from: 0, count: expected.length, differ: [] });
  if (state.segmentsFrom) {
    for (const from of [0, 1, Math.floor(expected.length / 2), expected.length - 1, expected.length]) {
      expect(same(await state.segmentsFrom(recordId, from), from)).toStrictEqual({ from, count: expected.length - from, differ: [] });
    }
  }
}

/** Registers the checks of the optional session-state capability (`ThreadStore.sessionState`). */
export function describeSessionStateConformance(ctx: SessionStateKitContext): void {
  const cap = (): SessionStateStore => {
    const found = ctx.store().sessionState;
    if (!found) throw new Error("the store has no sessionState capability, but the kit was told it has");
    return found;
  };
  const segmentsOf = async (recordId: string): Promise<number[][]> => (await cap().segments(recordId)).map((s) => [...s]);

  describe("session state", () => {
    it("round trip: finalize keeps the segments byte for byte with the manifest; a record without state has none", async () => {
      const store = ctx.store();
      const lease = await store.acquireLease("s-round", "owner-a", LONG_TTL);
      const rec = ctx.record("s-round");
      const manifest = { v: 1, files: [{ name: "transcript.jsonl", bytes: 261, text: "żółw ✓" }] };
      const written = await store.finalize({
        leases: [lease],
        record: rec,
        sessionState: write("replace", [ALL_BYTES, new Uint8Array(0), bytes("hello")], manifest),
      });
      expect(written.revision).toBe(1);
      expect(await cap().read(rec.id)).toStrictEqual({ manifest, segments: 3, bytes: 261 });
      expect(await segmentsOf(rec.id)).toStrictEqual([[...ALL_BYTES], [], [...bytes("hello")]]);
      const bare = ctx.record("s-bare");
      await store.finalize({ leases: [], record: bare });
      expect(await cap().read(bare.id)).toBeUndefined();
      expect(await cap().segments(bare.id)).toStrictEqual([]);
      expect(await cap().read("no-such-record")).toBeUndefined();
    });

    it("append adds segments after the stored ones; replace drops them; a write without state leaves the state alone", async () => {
      const store = ctx.store();
      const lease = await store.acquireLease("s-append", "owner-a", LONG_TTL);
      const rec = ctx.record("s-append");
      await store.finalize({ leases: [lease], record: rec, sessionState: write("append", [bytes("a1")], { n: 1 }) });
      await store.finalize({ leases: [lease], record: rec, sessionState: write("append", [bytes("b22"), bytes("c333")], { n: 2 }) });
      expect(await cap().read(rec.id)).toStrictEqual({ manifest: { n: 2 }, segments: 3, bytes: 9 });
      expect(await segmentsOf(rec.id)).toStrictEqual([[...bytes("a1")], [...bytes("b22")], [...bytes("c333")]]);
      await store.finalize({ leases: [lease], record: rec, sessionState: write("append", [], { n: 3 }) });
      expect(await cap().read(rec.id)).toStrictEqual({ manifest: { n: 3 }, segments: 3, bytes: 9 });
      await store.finalize({ leases: [lease], record: rec });
      expect(await cap().read(rec.id)).toStrictEqual({ manifest: { n: 3 }, segments: 3, bytes: 9 });
      await store.finalize({ leases: [lease], record: rec, sessionState: write("replace", [bytes("fresh")], { n: 4 }) });
      expect(await cap().read(rec.id)).toStrictEqual({ manifest: { n: 4 }, segments: 1, bytes: 5 });
      expect(await segmentsOf(rec.id)).toStrictEqual([[...bytes("fresh")]]);
      // The state belongs to its record: a new record of the key starts with none; the archived one keeps its own.
      const next = ctx.record("s-append");
      await store.finalize({ leases: [lease], record: next, archiveId: rec.id, sessionState: write("append", [bytes("n")], { n: 5 }) });
      expect(await segmentsOf(next.id)).toStrictEqual([[...bytes("n")]]);
      expect(await segmentsOf(rec.id)).toStrictEqual([[...bytes("fresh")]]);
    });

    for (const step of ["leases-checked", "archived", "record-written"] as const) {
      it(`atomic with finalize: a backend fault after step "${step}" writes neither the record nor its state`, async () => {
        const store = ctx.store();
        const lease = await store.acquireLease("s-atomic", "owner-a", LONG_TTL);
        const rec = ctx.record("s-atomic");
        const first = await store.finalize({ leases: [lease], record: rec, sessionState: write("replace", [bytes("one")], { n: 1 }) });
        const injected = ctx.faults().failAfterFinalizeStep(step);
        const err = await ctx.rejection(
          store.finalize({
            leases: [lease],
            record: { ...rec, checkpoint: { resumeId: "r2" } },
            sessionState: write("append", [bytes("two")], { n: 2 }),
          }),
        );
        expect(walkError(err, (node) => node === injected)).toBe(true);
        expect((await store.resolve({ id: rec.id }))?.revision).toBe(first.revision);
        expect(await cap().read(rec.id)).toStrictEqual({ manifest: { n: 1 }, segments: 1, bytes: 3 });
        expect(await segmentsOf(rec.id)).toStrictEqual([[...bytes("one")]]);
        // A fresh record whose finalize fails leaves no state behind either.
        const other = ctx.record("s-atomic-new");
        ctx.faults().failAfterFinalizeStep(step);
        await expect(
          store.finalize({ leases: [], record: other, sessionState: write("replace", [bytes("x")], { n: 9 }) }),
        ).rejects.toThrow();
        expect(await cap().read(other.id)).toBeUndefined();
      });
    }

    it("a write's manifest replaces the stored one whole, in append and in replace mode: no field of the old one is kept", async () => {
      const store = ctx.store();
      const lease = await store.acquireLease("s-manifest", "owner-a", LONG_TTL);
      const rec = ctx.record("s-manifest");
      const steps: [SessionStateWrite["mode"], Uint8Array[], unknown][] = [
        ["replace", [bytes("a")], { a: 1, b: { c: 2 } }],
        ["append", [bytes("b")], { d: 3 }],
        ["append", [], { b: { e: 4 } }],
        ["replace", [bytes("c")], { f: [5] }],
        ["append", [], ["g"]],
        ["append", [], { h: 6 }],
      ];
      for (const [mode, segments, manifest] of steps) {
        await store.finalize({ leases: [lease], record: rec, sessionState: write(mode, segments, manifest) });
        expect((await cap().read(rec.id))?.manifest, `after ${mode} with ${JSON.stringify(manifest)}`).toStrictEqual(manifest);
      }
    });

    it("segments are copied in and out: changing an array after finalize wrote it, or one a read returned, changes nothing stored", async () => {
      const store = ctx.store();
      const lease = await store.acquireLease("s-copies", "owner-a", LONG_TTL);
      const rec = ctx.record("s-copies");
      const stored = [[...bytes("one")], [...bytes("two")], [...bytes("three")]];
      const first = [bytes("one"), bytes("two")];
      await store.finalize({ leases: [lease], record: rec, sessionState: write("replace", first, { n: 1 }) });
      const appended = [bytes("three")];
      await store.finalize({ leases: [lease], record: rec, sessionState: write("append", appended, { n: 2 }) });
      for (const segment of [...first, ...appended]) segment.fill(0x58);
      expect(await segmentsOf(rec.id), "a caller's array changed after finalize changed the stored segment").toStrictEqual(stored);
      for (const segment of await cap().segments(rec.id)) segment.fill(0x59);
      expect(await segmentsOf(rec.id), "a segment segments() returned, changed in place, changed the stored one").toStrictEqual(stored);
      const state = cap();
      if (state.segmentsFrom) {
        for (const segment of await state.segmentsFrom(rec.id, 1)) segment.fill(0x5a);
        expect(await segmentsOf(rec.id), "a segment segmentsFrom() returned, changed in place, changed the stored one").toStrictEqual(
          stored,
        );
      }
    });

    it("a finalize refused with AlreadyExistsError writes no state", async () => {
      const store = ctx.store();
      await store.finalize({ leases: [], record: ctx.record("s-taken") });
      const rival = ctx.record("s-taken");
      await expect(
        store.finalize({ leases: [], record: rival, requireKeyAbsent: true, sessionState: write("replace", [bytes("r")], {}) }),
      ).rejects.toBeInstanceOf(AlreadyExistsError);
      expect(await cap().read(rival.id)).toBeUndefined();
    });

    it("limit enforced: over limitBytes finalize rejects with SessionStateTooLargeError and keeps the previous record and state", async () => {
      const store = ctx.store();
      const lease = await store.acquireLease("s-limit", "owner-a", LONG_TTL);
      const rec = ctx.record("s-limit", { checkpoint: { resumeId: "r1" } });
      // Exactly the limit is allowed.
      await store.finalize({
        leases: [lease],
        record: rec,
        sessionState: write("replace", [new Uint8Array(60), new Uint8Array(40)], { n: 1 }, 100),
      });
      expect(await cap().read(rec.id)).toStrictEqual({ manifest: { n: 1 }, segments: 2, bytes: 100 });
      // An append counts what is stored: 100 + 1 > 100.
      const err = await ctx.rejection(
        store.finalize({
          leases: [lease],
          record: { ...rec, checkpoint: { resumeId: "r2" } },
          sessionState: write("append", [new Uint8Array(1)], { n: 2 }, 100),
        }),
      );
      expect(err).toBeInstanceOf(SessionStateTooLargeError);
      expect(isError(err, ErrSessionStateTooLarge)).toBe(true);
      expect(findError(err, SessionStateTooLargeError)).toMatchObject({ key: "s-limit", bytes: 101, limitBytes: 100 });
      const kept = await store.resolve({ key: "s-limit" });
      expect(kept?.checkpoint.resumeId).toBe("r1");
      expect(kept?.revision).toBe(1);
      expect(await cap().read(rec.id)).toStrictEqual({ manifest: { n: 1 }, segments: 2, bytes: 100 });
      // A replace counts only its own segments.
      await store.finalize({ leases: [lease], record: rec, sessionState: write("replace", [new Uint8Array(90)], { n: 3 }, 100) });
      expect(await cap().read(rec.id)).toStrictEqual({ manifest: { n: 3 }, segments: 1, bytes: 90 });
      // A new record over the limit is not written at all.
      const big = ctx.record("s-limit-new");
      await expect(
        store.finalize({ leases: [], record: big, sessionState: write("replace", [new Uint8Array(11)], {}, 10) }),
      ).rejects.toBeInstanceOf(SessionStateTooLargeError);
      expect(await store.resolve({ id: big.id })).toBeUndefined();
      expect(await cap().read(big.id)).toBeUndefined();
    });

    it("a stale lease cannot write session state: LeaseLostError, nothing written; the new holder can", async () => {
      const store = ctx.store();
      const ttl = ctx.lapsingTtl();
      const holder = await store.acquireLease("s-stale", "owner-a", LONG_TTL);
      const rec = ctx.record("s-stale");
      await store.finalize({ leases: [holder], record: rec, sessionState: write("replace", [bytes("base")], { n: 1 }) });
      await store.releaseLease(holder);
      const old: Lease = await store.acquireLease("s-stale", "owner-a", ttl);
      await ctx.elapse(ttl);
      const current = await store.acquireLease("s-stale", "owner-b", LONG_TTL);
      const err = await ctx.rejection(
        store.finalize({ leases: [old], record: rec, sessionState: write("append", [bytes("stale")], { n: 2 }) }),
      );
      expect(err).toBeInstanceOf(LeaseLostError);
      expect(await cap().read(rec.id)).toStrictEqual({ manifest: { n: 1 }, segments: 1, bytes: 4 });
      await store.finalize({ leases: [current], record: rec, sessionState: write("append", [bytes("new")], { n: 3 }) });
      expect(await segmentsOf(rec.id)).toStrictEqual([[...bytes("base")], [...bytes("new")]]);
    });

    it("a long history: 60 segments of 1.2 MB in all, appended over 12 finalizes, read back whole, in order, byte for byte by every read", async () => {
      const store = ctx.store();
      const lease = await store.acquireLease("s-long", "owner-a", LONG_TTL);
      const rec = ctx.record("s-long");
      const all = longHistory();
      for (let turn = 0; turn < LONG_TURNS; turn++) {
        const segments = all.slice(turn * LONG_PER_TURN, (turn + 1) * LONG_PER_TURN);
        await store.finalize({
          leases: [lease],
          record: { ...rec, checkpoint: { resumeId: `r${turn}` } },
          sessionState: write(turn === 0 ? "replace" : "append", segments, { turn }, LONG_LIMIT),
        });
      }
      await expectHistory(cap(), rec.id, all, { turn: LONG_TURNS - 1 });
    });

    it("summary (when the store has it) adds up the stored segments: count, bytes and the position-weighted checksum of the segment tags after every write", async (test) => {
      if (!(await checkSegmentSummary(ctx.store()))) test.skip();
    });

    it("summary (when the store has it) sees a segment lost beneath the store (with the harness's loseSegment)", async (test) => {
      const lose = ctx.loseSegment();
      if (!lose)
        return test.skip(
          "the harness has no loseSegment, so the kit cannot tell a summary computed from the stored segments from counters kept beside them",
        );
      if (!(await checkSummarySeesLoss(ctx.store(), lose))) test.skip("the store has no sessionState.summary");
    });

    it("a malformed sessionState is refused before anything is written", async () => {
      const store = ctx.store();
      const rec = ctx.record("s-bad");
      const bad: unknown[] = [
        { mode: "merge", segments: [], manifest: {}, limitBytes: 10 },
        { mode: "append", segments: ["text"], manifest: {}, limitBytes: 10 },
        { mode: "append", segments: [], manifest: {}, limitBytes: 0 },
        { mode: "append", segments: [], manifest: {}, limitBytes: 1.5 },
      ];
      for (const sessionState of bad) {
        const err = await ctx.rejection(store.finalize({ leases: [], record: rec, sessionState: sessionState as SessionStateWrite }));
        expect(err instanceof TypeError || err instanceof RangeError).toBe(true);
      }
      expect(await store.resolve({ id: rec.id })).toBeUndefined();
      expect(await cap().read(rec.id)).toBeUndefined();
    });

    it("a broken backend fails both reads with ordinary errors that keep their cause", async () => {
      const broken = (await ctx.brokenStore()).sessionState;
      expect(broken).toBeDefined();
      const calls = [broken!.read("some-id"), broken!.segments("some-id"), ...(broken!.summary ? [broken!.summary("some-id")] : [])];
      for (const err of await rejections(calls)) {
        expect(err).toBeInstanceOf(Error);
        expect(isError(err, ErrBusy) || isError(err, ErrLeaseLost)).toBe(false);
        expect((err as Error).cause).toBeDefined();
      }
    });
  });
}
