import { setTimeout as sleep } from "node:timers/promises";
import { findError, isError, walkError } from "@adaptor/errors";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Lease } from "../contract/lease.js";
import type { ThreadRecord, ThreadRecordDraft } from "../contract/thread-record.js";
import type { ThreadStore } from "../contract/thread-store.js";
import { AlreadyExistsError } from "../errors/already-exists-error.js";
import { BusyError } from "../errors/busy-error.js";
import { LeaseLostError } from "../errors/lease-lost-error.js";
import { InvalidThreadKeyError } from "../errors/invalid-thread-key-error.js";
import { ErrAlreadyExists, ErrBusy, ErrInvalidThreadKey, ErrLeaseLost } from "../errors/sentinels.js";
import { MAX_THREAD_KEY_BYTES } from "../keys/thread-key.js";
import { FaultPlan } from "./fault-plan.js";
import { describeReleaseConformance } from "./release-conformance.js";
import { checkReleasedLeaseLost } from "./released-lease-checks.js";
import { describePendingApprovalsConformance } from "./pending-approvals-conformance.js";
import { describeSessionStateConformance, expectHistory, LONG_LIMIT, longHistory } from "./session-state-conformance.js";
import { describeThreadCatalogConformance } from "./thread-catalog-conformance.js";
import { rejection, rejections } from "./rejections.js";
import type { LoseSegment } from "./segment-summary-check.js";
import { at, record } from "./sample-record.js";
import {
  checkTwoInstanceAcquire,
  checkTwoInstanceCompareAndSet,
  checkTwoInstanceCreateIfAbsent,
  checkTwoInstanceFencedWrites,
} from "./two-instance-checks.js";

/** A clock the kit can read and move; `ManualClock` is one. */
export interface ConformanceClock {
  /** The store's current time. */
  now(): Date;
  /** Moves the store's clock forward by `ms` milliseconds. */
  advance(ms: number): void | Promise<void>;
}

/** What a factory returns for one test: a fresh, empty store, and how to move its clock and clean up. */
export interface ConformanceHarness {
  /** The store under test. */
  readonly store: ThreadStore;
  /**
   * The store's clock, when the test can control it (memory). Without one the kit waits in real
   * time, with short TTLs ({@link ConformanceOptions.shortTtlMs}), for stores whose expiry is judged
   * by a real clock (the process clock for SQLite, the database clock for PostgreSQL).
   */
  readonly clock?: ConformanceClock;
  /** Called after the test, after `store.close()`: drop the schema, delete the file. */
  readonly cleanup?: () => void | Promise<void>;
  /**
   * Optional: gives the kit a way to open a second instance on the same storage (the same file,
   * database schema or directory) as a restarted process would. The kit then checks durability:
   * what `finalize` committed is read back whole by an instance opened while the first is still open
   * (as after a crash, before it could flush anything) and by one opened after the first was closed.
   * It also races the two instances, as two hosts sharing one backend: 20 rounds each of
   * `acquireLease` on one target, `finalize` with `requireKeyAbsent`, `finalize` replacing the active
   * record (`archiveId`), and a fenced `finalize` against a takeover from the other instance, each
   * round with exactly one winner. A store that serializes only inside one instance (an in-process
   * mutex around its read-modify-write) fails them. The kit closes every instance it opens, before
   * `cleanup`. Without it (a store that keeps nothing past its process, like the memory store) those
   * checks are skipped, with the reason.
   */
  readonly reopen?: () => Promise<ThreadStore>;
  /**
   * Optional, for a store with `sessionState.summary`: deletes the stored segment at `index`
   * (0-based, in `segments()` order) of a record's session state directly in the backend, beneath
   * the store (`DELETE` of its row, removal of its file or object), leaving whatever the store keeps
   * beside the segments (counters, the manifest) as it is, as a lost row would. The kit then checks
   * `summary` sees the loss, so a store whose summary comes from counters fails. Without it that
   * test is skipped, with the reason: nothing else lets the kit tell a counter from the rows.
   */
  readonly loseSegment?: LoseSegment;
}

/** What the kit passes to the factory. */
export interface MakeStoreOptions {
  /**
   * Pass this to the store's `faults` option unchanged. The kit arms it to fail inside
   * `finalize`'s transaction and asserts nothing was written.
   */
  readonly faults: FaultPlan;
  /**
   * When true, return a store whose backend fails every call the way a real outage does: a closed
   * connection, an unreachable server, a closed database handle. A store without a backend may
   * call `faults.failEveryOperation()` instead.
   */
  readonly broken: boolean;
}

/** Makes a fresh, empty store for one test. Called once per test (twice for the broken-backend tests). */
export type MakeConformanceStore = (options: MakeStoreOptions) => Promise<ConformanceHarness>;

/** Tuning of {@link describeThreadStoreConformance}. */
export interface ConformanceOptions {
  /** TTL in ms of the leases meant to lapse during a test when the harness has no clock. Default 200. */
  readonly shortTtlMs?: number;
  /** Extra real time in ms waited after a short TTL, to absorb clock granularity and scheduling. Default 80. */
  readonly expiryMarginMs?: number;
  /** How far in ms `expiresAt` may stray from the local `now + ttl` when the harness has no clock. Default 5000. */
  readonly clockToleranceMs?: number;
  /**
   * The store has the optional session-state capability (`ThreadStore.sessionState`): the kit then
   * checks it (round trip, append and replace, atomic with `finalize`, the size limit, a stale lease
   * cannot write, a write's manifest replacing the stored one whole, segments copied in and out, a
   * 1.2 MB history of 60 segments read back whole by every read). Default false: the kit checks that the store does not claim it.
   */
  readonly sessionState?: boolean;
  /**
   * The store honours `FinalizeRequest.releaseLeases` (releases the leases in `finalize`'s
   * transaction): the kit then checks the leases are free at once, a released lease can neither
   * renew nor finalize, the holder's later `releaseLease` leaves a new holder alone, and a new lease
   * of the same owner is really released. Default false: the kit checks the store ignores the flag
   * (the leases stay held until `releaseLease`). Either way it checks a finalize with the flag
   * writes as usual and that a failed one releases nothing.
   */
  readonly releaseLeases?: boolean;
}

/** TTL of the leases that must stay live for the whole test. */
const LONG_TTL = 60_000;

/**
 * Registers the thread-store contract tests (docs/design.md "Thread stores") as a
 * vitest `describe` block named `ThreadStore conformance: <name>`. Call it at the top level of a
 * test file; `makeStore` is called before every test and must return a fresh, empty store.
 *
 * Choices this kit pins beyond the interface text: a lease is live while `now < expiresAt`;
 * `finalize` with an empty lease list is unconditional; writing an active record while another
 * active record of the key remains (not named by `archiveId`) fails with `AlreadyExistsError`;
 * `requireKeyAbsent` looks at the state before `archiveId` is applied; an unknown or already
 * archived `archiveId` is ignored; by key with `includeArchived`, the archived record with the
 * latest `createdAt` (then the larger `id`) wins; the same owner re-acquiring its live lease gets
 * `expiresAt = now + ttl` of the new call; records and leases are copied in and out; a lease is
 * judged by the store's own record (owner, token, stored expiry), never by the `expiresAt` of the
 * object passed in; backend failures and calls after `close()` reject with errors that are never
 * `BusyError` / `LeaseLostError` and keep their cause.
 *
 * @example
 * ```ts
 * describeThreadStoreConformance("memory", async ({ faults, broken }) => {
 *   const clock = new ManualClock();
 *   if (broken) faults.failEveryOperation();
 *   return { store: new MemoryThreadStore({ now: clock.now, faults }), clock };
 * });
 * ```
 */
export function describeThreadStoreConformance(name: string, makeStore: MakeConformanceStore, options: ConformanceOptions = {}): void {
  const shortTtl = options.shortTtlMs ?? 200;
  const margin = options.expiryMarginMs ?? 80;
  const tolerance = options.clockToleranceMs ?? 5_000;

  describe(`ThreadStore conformance: ${name}`, () => {
    let h: ConformanceHarness;
    let faults: FaultPlan;
    let store: ThreadStore;
    /** Harnesses made for the current test, closed and cleaned up after it (each once). */
    const open: ConformanceHarness[] = [];

    beforeEach(async () => {
      faults = new FaultPlan();
      h = await makeStore({ faults, broken: false });
      open.push(h);
      store = h.store;
    });

    afterEach(async () => {
      for (const harness of open.splice(0)) {
        await harness.store.close();
        await harness.cleanup?.();
      }
    });

    /** A TTL that lapses by {@link elapse}: long with a manual clock, short in real time. */
    const lapsingTtl = (): number => (h.clock ? 10_000 : shortTtl);
    /** Lets a lease of `ttl` ms (granted just now) lapse. */
    const elapse = async (ttl: number): Promise<void> => {
      if (h.clock) await h.clock.advance(ttl);
      else await sleep(ttl + margin);
    };
    const now = (): number => (h.clock ? h.clock.now() : new Date()).getTime();
    const brokenStore = async (): Promise<ThreadStore> => {
      const harness = await makeStore({ faults: new FaultPlan(), broken: true });
      open.push(harness);
      return harness.store;
    };

    it(
      options.sessionState ? "the store has the session-state capability" : "the store does not claim the session-state capability",
      () => {
        expect(store.sessionState !== undefined).toBe(options.sessionState === true);
      },
    );

    if (options.sessionState) {
      describeSessionStateConformance({
        store: () => store,
        loseSegment: () => h.loseSegment,
        faults: () => faults,
        brokenStore,
        lapsingTtl,
        elapse,
        record,
        rejection,
      });
    }

    describeReleaseConformance({
      store: () => store,
      faults: () => faults,
      record,
      rejection,
      honoured: options.releaseLeases === true,
      sessionState: options.sessionState === true,
    });

    describe("records and resolve", () => {
      it("resolve returns undefined for an unknown id and an unknown key", async () => {
        expect(await store.resolve({ id: "no-such-id" })).toBeUndefined();
        expect(await store.resolve({ key: "no-such-key" })).toBeUndefined();
        expect(await store.resolve({ key: "no-such-key", includeArchived: true })).toBeUndefined();
      });

      it("a finalized record resolves by id and by key with every field intact", async () => {
        const rec = record("k1", {
          checkpoint: {
            resumeId: "sess-1",
            displayId: "Session one",
            data: { turns: 3, nested: { ok: true, list: [1, "two", null] }, text: "żółw ✓" },
          },
        });
        const returned = await store.finalize({ leases: [], record: rec });
        expect(returned).toStrictEqual(stored(rec));
        expect(await store.resolve({ id: rec.id })).toStrictEqual(stored(rec));
        expect(await store.resolve({ key: "k1" })).toStrictEqual(stored(rec));
        const got = await store.resolve({ key: "k1" });
        expect(got?.createdAt).toBeInstanceOf(Date);
        expect(got?.createdAt.toISOString()).toBe(rec.createdAt.toISOString());
        expect(got?.updatedAt.toISOString()).toBe(rec.updatedAt.toISOString());
      });

      it("a checkpoint without displayId or data comes back without them, and data null stays null", async () => {
        const bare = record("bare", { checkpoint: { resumeId: "r-bare" } });
        const withNull = record("null-data", { checkpoint: { resumeId: "r-null", data: null } });
        await store.finalize({ leases: [], record: bare });
        await store.finalize({ leases: [], record: withNull });
        const a = await store.resolve({ id: bare.id });
        const b = await store.resolve({ id: withNull.id });
        expect(Object.keys(a?.checkpoint ?? {}).sort()).toEqual(["resumeId"]);
        expect(a?.checkpoint).toStrictEqual({ resumeId: "r-bare" });
        expect(b?.checkpoint).toStrictEqual({ resumeId: "r-null", data: null });
      });

      it("finalize upserts by id: writing the same id again replaces the record", async () => {
        const first = record("k-upsert", { checkpoint: { resumeId: "r1" } });
        await store.finalize({ leases: [], record: first });
        const second: ThreadRecordDraft = {
          ...first,
          checkpoint: { resumeId: "r2", data: { n: 2 } },
          updatedAt: new Date(first.updatedAt.getTime() + 1_000),
        };
        await store.finalize({ leases: [], record: second });
        expect(await store.resolve({ id: first.id })).toStrictEqual(stored(second, 2));
        expect(await store.resolve({ key: "k-upsert" })).toStrictEqual(stored(second, 2));
      });

      it("revision is 1 on the first write and one more on every later write, even with an unchanged updatedAt", async () => {
        const lease = await store.acquireLease("k-rev", "owner-a", LONG_TTL);
        const first = record("k-rev");
        expect((await store.finalize({ leases: [lease], record: first })).revision).toBe(1);
        // The same record written again within one instant (same times, same checkpoint): only the revision tells.
        expect((await store.finalize({ leases: [lease], record: first })).revision).toBe(2);
        expect((await store.finalize({ leases: [lease], record: { ...first, revision: 99 } })).revision).toBe(3);
        expect(await store.resolve({ key: "k-rev" })).toStrictEqual(stored(first, 3));
        // A new record starts at 1; archiving the old one through archiveId is a write of it too.
        const next = record("k-rev", { createdAt: at(5) });
        expect((await store.finalize({ leases: [lease], record: next, archiveId: first.id })).revision).toBe(1);
        expect((await store.resolve({ id: first.id }))?.revision).toBe(4);
        expect((await store.resolve({ key: "k-rev" }))?.revision).toBe(1);
        // A refused write leaves the revision alone.
        await expect(store.finalize({ leases: [lease], record: record("k-rev") })).rejects.toBeInstanceOf(AlreadyExistsError);
        expect((await store.resolve({ id: next.id }))?.revision).toBe(1);
      });

      it("records are copied in and out: changing a draft after finalize, or a record finalize or resolve returned, changes nothing stored", async () => {
        const draft = record("k-copies", {
          checkpoint: { resumeId: "r-copies", displayId: "shown", data: { turns: 1, nested: { list: [1, 2] } } },
        });
        const expected = structuredClone(stored(draft));
        const scribble = (r: ThreadRecordDraft): void => {
          const data = r.checkpoint.data as { turns: number; nested: { list: number[] } };
          data.turns = 99;
          data.nested.list.push(3);
          Object.assign(r.checkpoint, { resumeId: "r-scribbled" });
          r.createdAt.setTime(0);
          r.updatedAt.setTime(0);
          Object.assign(r, { status: "archived", fingerprint: "fp-scribbled" });
        };
        const returned = await store.finalize({ leases: [], record: draft });
        scribble(draft);
        expect(
          await store.resolve({ id: expected.id }),
          "a change to the draft after finalize reached the stored record: copy it in",
        ).toStrictEqual(expected);
        scribble(returned);
        expect(
          await store.resolve({ id: expected.id }),
          "a change to the record finalize returned reached the stored record: return a copy",
        ).toStrictEqual(expected);
        for (const query of [{ id: expected.id }, { key: "k-copies" }, { key: "k-copies", includeArchived: true }] as const) {
          const got = await store.resolve(query);
          expect(got).toStrictEqual(expected);
          scribble(got as ThreadRecord);
          expect(
            await store.resolve(query),
            "a change to the record resolve returned reached the stored record: return a copy",
          ).toStrictEqual(expected);
        }
        expect((await store.resolve({ key: "k-copies" }))?.id).toBe(expected.id);
      });

      it("resolve by key skips archived records unless includeArchived is set", async () => {
        const old = record("k-arch", { status: "archived" });
        await store.finalize({ leases: [], record: old });
        expect(await store.resolve({ key: "k-arch" })).toBeUndefined();
        expect(await store.resolve({ key: "k-arch", includeArchived: false })).toBeUndefined();
        expect(await store.resolve({ key: "k-arch", includeArchived: true })).toStrictEqual(stored(old));
        expect(await store.resolve({ id: old.id })).toStrictEqual(stored(old));
      });

      it("includeArchived still returns the active record when the key has one", async () => {
        const archived = record("k-both", { status: "archived", createdAt: at(10) });
        const active = record("k-both", { createdAt: at(5) });
        await store.finalize({ leases: [], record: archived });
        await store.finalize({ leases: [], record: active });
        expect((await store.resolve({ key: "k-both", includeArchived: true }))?.id).toBe(active.id);
      });

      it("includeArchived returns the archived record created last when no active one exists", async () => {
        const a = record("k-newest", { status: "archived", createdAt: at(1) });
        const c = record("k-newest", { status: "archived", createdAt: at(3) });
        const b = record("k-newest", { status: "archived", createdAt: at(2) });
        for (const r of [a, c, b]) await store.finalize({ leases: [], record: r });
        expect((await store.resolve({ key: "k-newest", includeArchived: true }))?.id).toBe(c.id);
        await store.finalize({ leases: [], record: record("other-key", { status: "archived", createdAt: at(9) }) });
        expect((await store.resolve({ key: "k-newest", includeArchived: true }))?.id).toBe(c.id);
      });

      it("includeArchived breaks a tie of createdAt between archived records by the larger id", async () => {
        const tied = ["tie-b", "tie-c", "tie-a"].map((id) => record("k-tie", { id, status: "archived", createdAt: at(4) }));
        for (const r of tied) await store.finalize({ leases: [], record: r });
        expect(
          (await store.resolve({ key: "k-tie", includeArchived: true }))?.id,
          "two archived records with the same createdAt: the larger id wins",
        ).toBe("tie-c");
      });
    });

    describe("leases", () => {
      it("acquireLease returns the target, the owner, a positive integer token and expiresAt = now + ttl", async () => {
        const before = now();
        const lease = await store.acquireLease("t-shape", "owner-a", 30_000);
        const after = now();
        expect(lease.target).toBe("t-shape");
        expect(lease.owner).toBe("owner-a");
        expect(Number.isSafeInteger(lease.token) && lease.token > 0).toBe(true);
        expect(lease.expiresAt).toBeInstanceOf(Date);
        const slack = h.clock ? 0 : tolerance;
        expect(lease.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 30_000 - slack);
        expect(lease.expiresAt.getTime()).toBeLessThanOrEqual(after + 30_000 + slack);
      });

      it("busy while live: another owner gets BusyError naming the target, the holder and when its lease lapses", async () => {
        const held = await store.acquireLease("t-busy", "owner-a", LONG_TTL);
        const err = await rejection(store.acquireLease("t-busy", "owner-b", LONG_TTL));
        expect(err).toBeInstanceOf(BusyError);
        expect(isError(err, ErrBusy)).toBe(true);
        const busy = findError(err, BusyError);
        expect(busy?.target).toBe("t-busy");
        expect(busy?.owner).toBe("owner-a");
        expect(busy?.expiresAt?.getTime()).toBe(held.expiresAt.getTime());
        expect(busy?.message).toBe(`lease busy: t-busy (held by "owner-a" until ${held.expiresAt.toISOString()})`);
        // The holder is untouched: it can still renew.
        const renewed = await store.renewLease(held, LONG_TTL);
        expect(renewed.token).toBe(held.token);
      });

      it("leases on different targets do not block each other", async () => {
        const a = await store.acquireLease("t-one", "owner-a", LONG_TTL);
        const b = await store.acquireLease("t-two", "owner-b", LONG_TTL);
        expect(a.target).toBe("t-one");
        expect(b.target).toBe("t-two");
        expect(b.owner).toBe("owner-b");
      });

      it("takeover after expiry: another owner acquires the lapsed lease with a higher token", async () => {
        const ttl = lapsingTtl();
        const old = await store.acquireLease("t-takeover", "owner-a", ttl);
        await elapse(ttl);
        const taken = await store.acquireLease("t-takeover", "owner-b", LONG_TTL);
        expect(taken.owner).toBe("owner-b");
        expect(taken.token).toBeGreaterThan(old.token);
        await expect(store.acquireLease("t-takeover", "owner-a", LONG_TTL)).rejects.toBeInstanceOf(BusyError);
      });

      it("the same owner re-acquires its live lease with a higher token, and the old token goes stale", async () => {
        const first = await store.acquireLease("t-again", "owner-a", LONG_TTL);
        const second = await store.acquireLease("t-again", "owner-a", LONG_TTL);
        expect(second.owner).toBe("owner-a");
        expect(second.token).toBeGreaterThan(first.token);
        const err = await rejection(store.renewLease(first, LONG_TTL));
        expect(err).toBeInstanceOf(LeaseLostError);
        expect((await store.renewLease(second, LONG_TTL)).token).toBe(second.token);
      });

      it("the same owner re-acquiring its live lease fences the first holder: its finalize fails and writes nothing, before and after the second holder commits", async () => {
        const first = await store.acquireLease("t-again-commit", "owner-a", LONG_TTL);
        const second = await store.acquireLease("t-again-commit", "owner-a", LONG_TTL);
        const early = record("t-again-commit");
        const why = "finalize accepted the first lease after the same owner re-acquired it (the token must move on)";
        expect(await rejection(store.finalize({ leases: [first], record: early }), why), why).toBeInstanceOf(LeaseLostError);
        expect(await store.resolve({ id: early.id })).toBeUndefined();
        const kept = record("t-again-commit");
        expect((await store.finalize({ leases: [second], record: kept, releaseLeases: true })).id).toBe(kept.id);
        const late = record("t-again-commit");
        const lateWhy = "finalize accepted the first lease after the second holder committed (and released) it";
        expect(await rejection(store.finalize({ leases: [first], record: late }), lateWhy), lateWhy).toBeInstanceOf(LeaseLostError);
        expect(await store.resolve({ id: late.id })).toBeUndefined();
        expect((await store.resolve({ key: "t-again-commit" }))?.id).toBe(kept.id);
      });

      it("the same owner re-acquiring its live lease gets expiresAt = now + the new ttl, longer or shorter, and other owners are told that expiry", async () => {
        // An hour against a minute (then 20 s against an hour): a store that keeps the held lease's
        // expiry fails in real time with no waiting.
        const slack = h.clock ? 0 : tolerance;
        let held = await store.acquireLease("t-again-ttl", "owner-a", LONG_TTL);
        for (const ttl of [3_600_000, 20_000]) {
          if (h.clock) await h.clock.advance(5_000);
          const before = now();
          const again = await store.acquireLease("t-again-ttl", "owner-a", ttl);
          const after = now();
          expect(again.token).toBeGreaterThan(held.token);
          expect(again.expiresAt.getTime(), `re-acquired with ttl ${ttl}`).toBeGreaterThanOrEqual(before + ttl - slack);
          expect(again.expiresAt.getTime(), `re-acquired with ttl ${ttl}`).toBeLessThanOrEqual(after + ttl + slack);
          // The stored lease moved too: another owner is told the new expiry.
          const busy = findError(await rejection(store.acquireLease("t-again-ttl", "owner-b", LONG_TTL)), BusyError);
          expect(busy?.expiresAt?.getTime()).toBe(again.expiresAt.getTime());
          held = again;
        }
      });

      it("renewLease keeps the token and moves expiresAt to now + ttl, so the lease outlives its first TTL", async () => {
        const ttl = h.clock ? 10_000 : shortTtl * 2;
        const lease = await store.acquireLease("t-renew", "owner-a", ttl);
        const renewed = await store.renewLease(lease, LONG_TTL);
        expect(renewed.token).toBe(lease.token);
        expect(renewed.target).toBe("t-renew");
        expect(renewed.owner).toBe("owner-a");
        expect(renewed.expiresAt.getTime()).toBeGreaterThan(lease.expiresAt.getTime() + LONG_TTL - ttl - 1_000);
        await elapse(ttl);
        await expect(store.acquireLease("t-renew", "owner-b", LONG_TTL)).rejects.toBeInstanceOf(BusyError);
        expect((await store.renewLease(renewed, LONG_TTL)).token).toBe(lease.token);
      });

      it("renewLease sets expiresAt = the renewal's now + ttl, not the lease's stored expiry + ttl", async () => {
        // Held with a long TTL, renewed with a shorter one: a store extending from the stored expiry
        // lands a whole LONG_TTL later, also in real time, with no waiting.
        const slack = h.clock ? 0 : tolerance;
        let lease = await store.acquireLease("t-renew-now", "owner-a", LONG_TTL);
        for (const step of [7_000, 10_000, 10_000]) {
          if (h.clock) await h.clock.advance(step);
          const before = now();
          lease = await store.renewLease(lease, 30_000);
          const after = now();
          expect(lease.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 30_000 - slack);
          expect(lease.expiresAt.getTime()).toBeLessThanOrEqual(after + 30_000 + slack);
        }
        // Another owner is told the renewed expiry, when the holder's lease really lapses.
        const busy = findError(await rejection(store.acquireLease("t-renew-now", "owner-b", LONG_TTL)), BusyError);
        expect(busy?.expiresAt?.getTime()).toBe(lease.expiresAt.getTime());
      });

      it("renewLease after expiry fails with LeaseLostError even when nobody took the lease", async () => {
        const ttl = lapsingTtl();
        const lease = await store.acquireLease("t-lapsed", "owner-a", ttl);
        await elapse(ttl);
        const err = await rejection(store.renewLease(lease, LONG_TTL));
        expect(err).toBeInstanceOf(LeaseLostError);
        expect(isError(err, ErrLeaseLost)).toBe(true);
        expect(findError(err, LeaseLostError)?.target).toBe("t-lapsed");
      });

      it("renewLease of a lease that was never granted fails with LeaseLostError", async () => {
        const forged: Lease = { target: "t-forged", owner: "owner-a", token: 7, expiresAt: new Date(now() + LONG_TTL) };
        await expect(store.renewLease(forged, LONG_TTL)).rejects.toBeInstanceOf(LeaseLostError);
        const real = await store.acquireLease("t-forged", "owner-a", LONG_TTL);
        await expect(store.renewLease({ ...real, owner: "owner-b" }, LONG_TTL)).rejects.toBeInstanceOf(LeaseLostError);
        await expect(store.renewLease({ ...real, token: real.token + 1 }, LONG_TTL)).rejects.toBeInstanceOf(LeaseLostError);
      });

      it("the store judges a lease by its own record: a lease object with a later expiresAt, another owner or another token neither renews nor finalizes", async () => {
        // A lapsed lease whose caller moved expiresAt forward (a copy, or the returned object changed in place).
        const ttl = lapsingTtl();
        const lapsed = await store.acquireLease("t-judged", "owner-a", ttl);
        await elapse(ttl);
        const later = new Date(now() + LONG_TTL);
        const cases = [
          {
            forged: (): Lease => ({ ...lapsed, expiresAt: later }),
            why: "trusted the expiresAt of the lease passed in (a copy moved later): judge expiry by the stored lease",
          },
          {
            forged: (): Lease => (lapsed.expiresAt.setTime(later.getTime()), lapsed),
            why: "let a change to the expiresAt of the lease acquireLease returned reach the stored lease: keep and return copies (a new Date)",
          },
        ];
        for (const { forged: make, why } of cases) {
          const forged = make();
          const lost = await rejection(store.renewLease(forged, LONG_TTL), `renewLease ${why}`);
          expect(lost, `renewLease ${why}`).toBeInstanceOf(LeaseLostError);
          const draft = record("t-judged");
          const failed = await rejection(store.finalize({ leases: [forged], record: draft }), `finalize ${why}`);
          expect(failed, `finalize ${why}`).toBeInstanceOf(LeaseLostError);
          expect(await store.resolve({ id: draft.id })).toBeUndefined();
        }
        // A live lease presented under another owner or token.
        const held = await store.acquireLease("t-judged", "owner-b", LONG_TTL);
        for (const forged of [
          { ...held, owner: "owner-c" },
          { ...held, token: held.token + 1 },
          { ...held, owner: "owner-c", expiresAt: new Date(now() + 2 * LONG_TTL) },
        ]) {
          const draft = record("t-judged");
          const why = "finalize accepted a lease whose owner or token is not the stored one";
          expect(await rejection(store.finalize({ leases: [forged], record: draft }), why), why).toBeInstanceOf(LeaseLostError);
          expect(await store.resolve({ id: draft.id })).toBeUndefined();
          await expect(store.renewLease(forged, LONG_TTL)).rejects.toBeInstanceOf(LeaseLostError);
        }
        // The holder's lease object with an earlier expiresAt still counts: the stored lease is live.
        const stale: Lease = { ...held, expiresAt: new Date(now() - LONG_TTL) };
        expect((await store.renewLease(stale, LONG_TTL)).token).toBe(held.token);
        const draft = record("t-judged");
        expect((await store.finalize({ leases: [stale], record: draft })).id).toBe(draft.id);
        await expect(store.acquireLease("t-judged", "owner-c", LONG_TTL)).rejects.toBeInstanceOf(BusyError);
      });

      it("after takeover the old holder's renew fails, its finalize fails and writes nothing, its release is a no-op", async () => {
        const ttl = lapsingTtl();
        const old = await store.acquireLease("t-stale", "owner-a", ttl);
        await elapse(ttl);
        const current = await store.acquireLease("t-stale", "owner-b", LONG_TTL);
        await expect(store.renewLease(old, LONG_TTL)).rejects.toBeInstanceOf(LeaseLostError);
        const stale = record("t-stale");
        const err = await rejection(store.finalize({ leases: [old], record: stale }));
        expect(err).toBeInstanceOf(LeaseLostError);
        expect(findError(err, LeaseLostError)?.target).toBe("t-stale");
        expect(await store.resolve({ id: stale.id })).toBeUndefined();
        expect(await store.resolve({ key: "t-stale" })).toBeUndefined();
        await expect(store.releaseLease(old)).resolves.toBeUndefined();
        // The new holder still holds: a third owner is busy, the holder can renew and finalize.
        await expect(store.acquireLease("t-stale", "owner-c", LONG_TTL)).rejects.toBeInstanceOf(BusyError);
        expect((await store.renewLease(current, LONG_TTL)).token).toBe(current.token);
        const fresh = record("t-stale");
        await store.finalize({ leases: [current], record: fresh });
        expect((await store.resolve({ key: "t-stale" }))?.id).toBe(fresh.id);
      });

      it("fencing tokens strictly increase across takeovers, releases and re-acquisitions", async () => {
        const tokens: number[] = [];
        const ttl = lapsingTtl();
        let lease = await store.acquireLease("t-fence", "owner-a", ttl);
        tokens.push(lease.token);
        await elapse(ttl);
        lease = await store.acquireLease("t-fence", "owner-b", LONG_TTL); // takeover
        tokens.push(lease.token);
        lease = await store.acquireLease("t-fence", "owner-b", LONG_TTL); // same owner again
        tokens.push(lease.token);
        await store.releaseLease(lease);
        lease = await store.acquireLease("t-fence", "owner-c", ttl); // after release
        tokens.push(lease.token);
        await elapse(ttl);
        lease = await store.acquireLease("t-fence", "owner-a", LONG_TTL); // takeover back
        tokens.push(lease.token);
        for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1] as number);
        expect(new Set(tokens).size).toBe(tokens.length);
      });

      it("tokens never reset: release then acquire by the same owner gives a higher token", async () => {
        const first = await store.acquireLease("t-reset", "owner-a", LONG_TTL);
        await store.releaseLease(first);
        const second = await store.acquireLease("t-reset", "owner-a", LONG_TTL);
        await store.releaseLease(second);
        const third = await store.acquireLease("t-reset", "owner-b", LONG_TTL);
        expect(second.token).toBeGreaterThan(first.token);
        expect(third.token).toBeGreaterThan(second.token);
        // The released token stays stale.
        await expect(store.renewLease(first, LONG_TTL)).rejects.toBeInstanceOf(LeaseLostError);
      });

      it("releaseLease is idempotent and frees the target for another owner at once", async () => {
        const lease = await store.acquireLease("t-release", "owner-a", LONG_TTL);
        await expect(store.releaseLease(lease)).resolves.toBeUndefined();
        await expect(store.releaseLease(lease)).resolves.toBeUndefined();
        const next = await store.acquireLease("t-release", "owner-b", LONG_TTL);
        expect(next.owner).toBe("owner-b");
        await expect(store.releaseLease(lease)).resolves.toBeUndefined();
        // The third release of the old lease did not free owner-b's lease.
        await expect(store.acquireLease("t-release", "owner-c", LONG_TTL)).rejects.toBeInstanceOf(BusyError);
        await expect(store.renewLease(lease, LONG_TTL)).rejects.toBeInstanceOf(LeaseLostError);
      });

      it("a released lease can neither renew nor finalize (LeaseLostError, nothing written), even while no other owner took its key", async () => {
        await checkReleasedLeaseLost(store, "t-released");
      });

      it("releasing a lease that was never granted, or with a stale token, is a no-op", async () => {
        const forged: Lease = { target: "t-never", owner: "owner-a", token: 1, expiresAt: new Date(now() + LONG_TTL) };
        await expect(store.releaseLease(forged)).resolves.toBeUndefined();
        const held = await store.acquireLease("t-never", "owner-a", LONG_TTL);
        await expect(store.releaseLease({ ...held, token: held.token - 1 })).resolves.toBeUndefined();
        await expect(store.releaseLease({ ...held, owner: "owner-z" })).resolves.toBeUndefined();
        await expect(store.acquireLease("t-never", "owner-b", LONG_TTL)).rejects.toBeInstanceOf(BusyError);
      });

      it("20 concurrent acquirers: exactly one wins, the other 19 get BusyError", async () => {
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) => store.acquireLease("t-race", `owner-${i}`, LONG_TTL)),
        );
        const won = results.filter((r): r is PromiseFulfilledResult<Lease> => r.status === "fulfilled");
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(19);
        for (const r of lost) {
          expect(r.reason).toBeInstanceOf(BusyError);
          expect((r.reason as BusyError).target).toBe("t-race");
        }
        const winner = won[0]?.value as Lease;
        expect((await store.renewLease(winner, LONG_TTL)).owner).toBe(winner.owner);
      });

      it("acquireLease rejects an empty target or owner (TypeError) and a non-positive ttl (RangeError)", async () => {
        await expect(store.acquireLease("", "owner-a", LONG_TTL)).rejects.toBeInstanceOf(TypeError);
        await expect(store.acquireLease("t-args", "", LONG_TTL)).rejects.toBeInstanceOf(TypeError);
        await expect(store.acquireLease("t-args", "owner-a", 0)).rejects.toBeInstanceOf(RangeError);
        await expect(store.acquireLease("t-args", "owner-a", -5)).rejects.toBeInstanceOf(RangeError);
        await expect(store.acquireLease("t-args", "owner-a", Number.NaN)).rejects.toBeInstanceOf(RangeError);
        // None of them took the lease.
        expect((await store.acquireLease("t-args", "owner-b", LONG_TTL)).owner).toBe("owner-b");
      });

      it("a lease is live until the instant before expiresAt and lapses exactly at expiresAt (controllable clock only)", async (ctx) => {
        if (!h.clock) return ctx.skip();
        const lease = await store.acquireLease("t-edge", "owner-a", 1_000);
        await h.clock.advance(999);
        await expect(store.acquireLease("t-edge", "owner-b", LONG_TTL)).rejects.toBeInstanceOf(BusyError);
        await h.clock.advance(1);
        await expect(store.renewLease(lease, LONG_TTL)).rejects.toBeInstanceOf(LeaseLostError);
        expect((await store.acquireLease("t-edge", "owner-b", LONG_TTL)).token).toBeGreaterThan(lease.token);
      });
    });

    describe("finalize", () => {
      it("finalize under a valid lease writes the record; with an empty lease list it is unconditional", async () => {
        const lease = await store.acquireLease("k-fin", "owner-a", LONG_TTL);
        const rec = record("k-fin");
        expect(await store.finalize({ leases: [lease], record: rec })).toStrictEqual(stored(rec));
        expect(await store.resolve({ key: "k-fin" })).toStrictEqual(stored(rec));
        const free = record("k-free");
        await store.finalize({ leases: [], record: free });
        expect(await store.resolve({ key: "k-free" })).toStrictEqual(stored(free));
      });

      it("finalize with an expired lease fails with LeaseLostError and writes nothing", async () => {
        const ttl = lapsingTtl();
        const lease = await store.acquireLease("k-expired", "owner-a", ttl);
        await elapse(ttl);
        const rec = record("k-expired");
        const err = await rejection(store.finalize({ leases: [lease], record: rec }));
        expect(err).toBeInstanceOf(LeaseLostError);
        expect(isError(err, ErrLeaseLost)).toBe(true);
        expect(await store.resolve({ id: rec.id })).toBeUndefined();
      });

      it("finalize with a released lease fails with LeaseLostError and writes nothing", async () => {
        const lease = await store.acquireLease("k-released", "owner-a", LONG_TTL);
        await store.releaseLease(lease);
        const rec = record("k-released");
        await expect(store.finalize({ leases: [lease], record: rec })).rejects.toBeInstanceOf(LeaseLostError);
        expect(await store.resolve({ id: rec.id })).toBeUndefined();
      });

      it("finalize needs every listed lease: one stale lease among valid ones fails it and writes nothing", async () => {
        const parent = await store.acquireLease("k-parent", "owner-a", LONG_TTL);
        const child = await store.acquireLease("k-child", "owner-a", LONG_TTL);
        const staleChild: Lease = { ...child, token: child.token - 1 };
        const rec = record("k-child");
        const err = await rejection(store.finalize({ leases: [parent, staleChild], record: rec }));
        expect(findError(err, LeaseLostError)?.target).toBe("k-child");
        expect(await store.resolve({ id: rec.id })).toBeUndefined();
        await store.finalize({ leases: [parent, child], record: rec });
        expect((await store.resolve({ key: "k-child" }))?.id).toBe(rec.id);
      });

      it("archive + rebind: archiveId is archived and the new record becomes the key's active record in one step", async () => {
        const lease = await store.acquireLease("k-rebind", "owner-a", LONG_TTL);
        const old = record("k-rebind", { createdAt: at(1) });
        await store.finalize({ leases: [lease], record: old });
        const next = record("k-rebind", { createdAt: at(2), checkpoint: { resumeId: "r-next" } });
        await store.finalize({ leases: [lease], record: next, archiveId: old.id });
        expect((await store.resolve({ key: "k-rebind" }))?.id).toBe(next.id);
        const archived = await store.resolve({ id: old.id });
        expect(archived?.status).toBe("archived");
        expect(archived?.key).toBe("k-rebind");
        expect(archived?.checkpoint).toStrictEqual(old.checkpoint);
        expect(archived?.createdAt.toISOString()).toBe(old.createdAt.toISOString());
        await store.finalize({ leases: [lease], record: { ...next, status: "archived" } });
        expect((await store.resolve({ key: "k-rebind", includeArchived: true }))?.id).toBe(next.id);
      });

      it("one active record per key: a second active record without archiveId fails with AlreadyExistsError and changes nothing", async () => {
        const first = record("k-one");
        await store.finalize({ leases: [], record: first });
        const second = record("k-one");
        const err = await rejection(store.finalize({ leases: [], record: second }));
        expect(err).toBeInstanceOf(AlreadyExistsError);
        expect(isError(err, ErrAlreadyExists)).toBe(true);
        expect(findError(err, AlreadyExistsError)?.key).toBe("k-one");
        expect(await store.resolve({ id: second.id })).toBeUndefined();
        expect(await store.resolve({ key: "k-one" })).toStrictEqual(stored(first));
      });

      it("archiving the wrong record does not open the way to two active records", async () => {
        const active = record("k-wrong");
        const unrelated = record("k-unrelated");
        await store.finalize({ leases: [], record: active });
        await store.finalize({ leases: [], record: unrelated });
        const next = record("k-wrong");
        await expect(store.finalize({ leases: [], record: next, archiveId: unrelated.id })).rejects.toBeInstanceOf(AlreadyExistsError);
        // All or nothing: the unrelated record was not archived either.
        expect((await store.resolve({ id: unrelated.id }))?.status).toBe("active");
        expect((await store.resolve({ key: "k-wrong" }))?.id).toBe(active.id);
        expect(await store.resolve({ id: next.id })).toBeUndefined();
      });

      it("requireKeyAbsent: an active record under the key fails it with AlreadyExistsError, writing and archiving nothing", async () => {
        const existing = record("k-fork-target");
        await store.finalize({ leases: [], record: existing });
        const fork = record("k-fork-target");
        const err = await rejection(store.finalize({ leases: [], record: fork, requireKeyAbsent: true, archiveId: existing.id }));
        expect(findError(err, AlreadyExistsError)?.key).toBe("k-fork-target");
        expect(await store.resolve({ id: fork.id })).toBeUndefined();
        expect(await store.resolve({ key: "k-fork-target" })).toStrictEqual(stored(existing));
      });

      it("requireKeyAbsent passes when the key is unused or has only archived records", async () => {
        const fresh = record("k-fresh");
        await store.finalize({ leases: [], record: fresh, requireKeyAbsent: true });
        expect((await store.resolve({ key: "k-fresh" }))?.id).toBe(fresh.id);
        const gone = record("k-old-fork", { status: "archived" });
        await store.finalize({ leases: [], record: gone });
        const again = record("k-old-fork");
        await store.finalize({ leases: [], record: again, requireKeyAbsent: true });
        expect((await store.resolve({ key: "k-old-fork" }))?.id).toBe(again.id);
      });

      it("10 concurrent finalizes with requireKeyAbsent on one fresh key: exactly one wins, nine get AlreadyExistsError", async () => {
        const candidates = Array.from({ length: 10 }, () => record("k-contested"));
        const results = await Promise.allSettled(
          candidates.map((rec) => store.finalize({ leases: [], record: rec, requireKeyAbsent: true })),
        );
        const won = results.filter((r) => r.status === "fulfilled");
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(9);
        for (const r of lost) expect(r.reason).toBeInstanceOf(AlreadyExistsError);
        const winner = candidates[results.findIndex((r) => r.status === "fulfilled")] as ThreadRecordDraft;
        expect((await store.resolve({ key: "k-contested" }))?.id).toBe(winner.id);
      });

      it("an archiveId that is unknown or already archived is ignored", async () => {
        const old = record("k-ignore", { status: "archived" });
        await store.finalize({ leases: [], record: old });
        const rec = record("k-ignore");
        await store.finalize({ leases: [], record: rec, archiveId: "no-such-record" });
        const rec2 = record("k-ignore-2");
        await store.finalize({ leases: [], record: rec2, archiveId: old.id });
        expect((await store.resolve({ key: "k-ignore" }))?.id).toBe(rec.id);
        expect((await store.resolve({ key: "k-ignore-2" }))?.id).toBe(rec2.id);
        expect(await store.resolve({ id: old.id })).toStrictEqual(stored(old));
      });

      it("writing an archived record beside the key's active record leaves the active one in place", async () => {
        const active = record("k-side");
        await store.finalize({ leases: [], record: active });
        const history = record("k-side", { status: "archived" });
        await store.finalize({ leases: [], record: history });
        expect((await store.resolve({ key: "k-side" }))?.id).toBe(active.id);
        expect((await store.resolve({ id: history.id }))?.status).toBe("archived");
      });

      it("finalize rejects a malformed request with a TypeError before writing", async () => {
        const rec = record("k-bad");
        await expect(store.finalize({ leases: [], record: { ...rec, key: "" } })).rejects.toBeInstanceOf(TypeError);
        await expect(store.finalize({ leases: [], record: rec, archiveId: rec.id })).rejects.toBeInstanceOf(TypeError);
        expect(await store.resolve({ id: rec.id })).toBeUndefined();
      });

      it("finalize refuses checkpoint data that is not JSON with a TypeError naming the path of the first such value, writing nothing; JSON data comes back as written", async () => {
        const cycle: Record<string, unknown> = { ok: 1 };
        cycle.self = cycle;
        const cases: [unknown, string][] = [
          [{ f: () => 1 }, "record.checkpoint.data.f"],
          [{ when: new Date(0) }, "record.checkpoint.data.when"],
          [{ list: [1, Number.NaN] }, "record.checkpoint.data.list[1]"],
          [{ n: 10n }, "record.checkpoint.data.n"],
          [cycle, "record.checkpoint.data.self"],
          [{ deep: { "odd key": [null, { inf: Number.POSITIVE_INFINITY }] } }, 'record.checkpoint.data.deep["odd key"][1].inf'],
        ];
        for (const [i, [data, path]] of cases.entries()) {
          const rec = record(`k-json-${i}`, { checkpoint: { resumeId: "r", data } });
          const err = await rejection(store.finalize({ leases: [], record: rec }));
          expect(err, `checkpoint data ${path}: not JSON must be refused with a TypeError`).toBeInstanceOf(TypeError);
          expect((err as Error).message).toContain(path);
          expect(await store.resolve({ id: rec.id })).toBeUndefined();
        }
        const json = { s: "żółw", n: -1.5, b: false, z: null, list: [1, "two", { three: [] }], nested: { "odd key": {} } };
        const ok = record("k-json-ok", { checkpoint: { resumeId: "r", data: json } });
        await store.finalize({ leases: [], record: ok });
        expect((await store.resolve({ id: ok.id }))?.checkpoint.data).toStrictEqual(json);
      });
    });

    describe("thread keys", () => {
      it("every valid key round-trips exactly through finalize, resolve and leases, and no two keys share a record or a lease", async () => {
        const label = (key: string): string => JSON.stringify(key).slice(0, 60);
        const records = VALID_KEYS.map((key, i) => record(key, { checkpoint: { resumeId: `resume-${i}` } }));
        const written = await Promise.all(records.map((rec) => store.finalize({ leases: [], record: rec })));
        for (const [i, key] of VALID_KEYS.entries()) expect(written[i]?.key === key, label(key)).toBe(true);
        // Every key gets a lease of its own at once: two keys sharing a lease row would make one busy.
        const leases = await Promise.all(VALID_KEYS.map((key, i) => store.acquireLease(key, `owner-${i}`, LONG_TTL)));
        const [byKey, byId, renewed] = await Promise.all([
          Promise.all(VALID_KEYS.map((key) => store.resolve({ key }))),
          Promise.all(records.map((rec) => store.resolve({ id: rec.id }))),
          Promise.all(leases.map((lease) => store.renewLease(lease, LONG_TTL))),
        ]);
        for (const [i, key] of VALID_KEYS.entries()) {
          expect(byKey[i]?.id, label(key)).toBe(records[i]?.id);
          expect(byKey[i]?.key === key, label(key)).toBe(true);
          expect(byKey[i]?.checkpoint.resumeId, label(key)).toBe(`resume-${i}`);
          expect(byId[i]?.key === key, label(key)).toBe(true);
          expect(leases[i]?.target === key, label(key)).toBe(true);
          expect(renewed[i]?.token, label(key)).toBe(leases[i]?.token);
        }
        // Rebinding every key under its own lease touches only that key.
        await Promise.all(
          VALID_KEYS.map((key, i) =>
            store.finalize({
              leases: [leases[i]!],
              record: record(key, { checkpoint: { resumeId: `next-${i}` }, createdAt: at(60) }),
              archiveId: records[i]!.id,
            }),
          ),
        );
        const [after, archived] = await Promise.all([
          Promise.all(VALID_KEYS.map((key) => store.resolve({ key }))),
          Promise.all(records.map((rec) => store.resolve({ id: rec.id }))),
        ]);
        for (const [i, key] of VALID_KEYS.entries()) {
          expect(after[i]?.checkpoint.resumeId, label(key)).toBe(`next-${i}`);
          expect(archived[i]?.status, label(key)).toBe("archived");
        }
      });

      it("a key of exactly the byte limit is a key; one byte more is refused with InvalidThreadKeyError", async () => {
        for (const unit of ["x", "\u00e9", "\u20ac", "\u{1F600}"]) {
          const bytes = Buffer.byteLength(unit, "utf8");
          const longest = unit.repeat(Math.floor(MAX_THREAD_KEY_BYTES / bytes)) + "x".repeat(MAX_THREAD_KEY_BYTES % bytes);
          expect(Buffer.byteLength(longest, "utf8")).toBe(MAX_THREAD_KEY_BYTES);
          const rec = record(longest);
          await store.finalize({ leases: [], record: rec });
          expect((await store.resolve({ key: longest }))?.key === longest).toBe(true);
          const lease = await store.acquireLease(longest, "owner-a", LONG_TTL);
          expect(lease.target === longest).toBe(true);
          const over = `${longest}y`;
          await expect(store.acquireLease(over, "owner-a", LONG_TTL)).rejects.toBeInstanceOf(InvalidThreadKeyError);
          await expect(store.finalize({ leases: [], record: record(over) })).rejects.toBeInstanceOf(InvalidThreadKeyError);
        }
      });

      it("invalid keys (lone surrogates, NUL, whitespace only, controls, bidi overrides, 10 kB) are refused with InvalidThreadKeyError by every method, touching nothing", async () => {
        // Neighbours an invalid key could be folded into by a lossy backend.
        const neighbours = ["tenant\uFFFD", "tenant", "tenant?", "tenant\uFFFD\uFFFD", "a\uFFFDb", "x".repeat(MAX_THREAD_KEY_BYTES)];
        const held = new Map<string, Lease>();
        for (const key of neighbours) {
          await store.finalize({ leases: [], record: record(key, { checkpoint: { resumeId: `own-${key.length}` } }) });
          held.set(key, await store.acquireLease(key, "owner-n", LONG_TTL));
        }
        for (const key of INVALID_KEYS) {
          const label = JSON.stringify(key).slice(0, 60);
          const rec = record(key);
          const forged: Lease = { target: key, owner: "owner-x", token: 1, expiresAt: new Date(now() + LONG_TTL) };
          const calls: Promise<unknown>[] = [
            store.acquireLease(key, "owner-x", LONG_TTL),
            store.finalize({ leases: [], record: rec }),
            store.finalize({ leases: [forged], record: record("valid-key-for-forged-lease") }),
            store.resolve({ key }),
            store.resolve({ key, includeArchived: true }),
            store.renewLease(forged, LONG_TTL),
            store.releaseLease(forged),
          ];
          for (const err of await rejections(calls)) {
            expect(err, label).toBeInstanceOf(InvalidThreadKeyError);
            expect(isError(err, ErrInvalidThreadKey), label).toBe(true);
            expect(findError(err, InvalidThreadKeyError)?.key === key, label).toBe(true);
          }
          expect(await store.resolve({ id: rec.id }), label).toBeUndefined();
        }
        expect(await store.resolve({ key: "valid-key-for-forged-lease" })).toBeUndefined();
        // The neighbours kept their records and leases.
        for (const key of neighbours) {
          expect((await store.resolve({ key }))?.checkpoint.resumeId).toBe(`own-${key.length}`);
          expect((await store.renewLease(held.get(key)!, LONG_TTL)).owner).toBe("owner-n");
          await expect(store.acquireLease(key, "owner-y", LONG_TTL)).rejects.toBeInstanceOf(BusyError);
        }
      });
    });

    describe("durability (with the harness's reopen)", () => {
      it("what finalize committed is read back whole by a second instance on the same storage, opened before and after the first is closed; fencing tokens keep growing", async (test) => {
        const reopen = h.reopen;
        if (!reopen) return test.skip();
        const lease = await store.acquireLease("d-durable", "owner-a", LONG_TTL);
        const rec = record("d-durable", { checkpoint: { resumeId: "r1" } });
        const segments = longHistory().slice(0, 3);
        const state = (mode: "replace" | "append", list: Uint8Array[], n: number) =>
          options.sessionState ? { sessionState: { mode, segments: list, manifest: { n }, limitBytes: LONG_LIMIT } } : {};
        await store.finalize({ leases: [lease], record: rec, ...state("replace", segments.slice(0, 2), 1) });
        const committed = await store.finalize({
          leases: [lease],
          record: { ...rec, checkpoint: { resumeId: "r2" } },
          ...state("append", segments.slice(2), 2),
        });
        await store.releaseLease(lease);
        const check = async (other: ThreadStore): Promise<void> => {
          expect(await other.resolve({ id: rec.id })).toStrictEqual(committed);
          expect(await other.resolve({ key: "d-durable" })).toStrictEqual(committed);
          if (options.sessionState) await expectHistory(other.sessionState!, rec.id, segments, { n: 2 });
        };
        // As the successor of a process that crashed: the first instance has not been closed.
        const early = await reopen();
        open.unshift({ store: early });
        await check(early);
        await early.close();
        await store.close();
        const late = await reopen();
        open.unshift({ store: late });
        await check(late);
        const next = await late.acquireLease("d-durable", "owner-b", LONG_TTL);
        expect(next.token).toBeGreaterThan(lease.token);
      });
    });

    describe("two instances on one backend (with the harness's reopen)", () => {
      const races = {
        "acquireLease: exactly one lease per round, the rest BusyError, tokens strictly increasing": checkTwoInstanceAcquire,
        "finalize with requireKeyAbsent on a fresh key: exactly one creator per round, the rest AlreadyExistsError":
          checkTwoInstanceCreateIfAbsent,
        "finalize replacing the active record (archiveId): exactly one replacement per round, the rest AlreadyExistsError":
          checkTwoInstanceCompareAndSet,
        "a fenced finalize against a takeover from the other instance: exactly one of the two writes lands per round":
          checkTwoInstanceFencedWrites,
      };
      for (const [title, check] of Object.entries(races)) {
        it(`two instances racing ${title}`, async (test) => {
          const reopen = h.reopen;
          if (!reopen) {
            return test.skip(
              "the harness has no reopen, so the kit cannot open a second instance on the same backend (a store whose backend is its own instance, like the memory store, has nothing two hosts could share)",
            );
          }
          const other = await reopen();
          open.unshift({ store: other });
          await check(store, other);
        });
      }
    });

    describe("atomicity under injected faults", () => {
      async function seeded(): Promise<{ lease: Lease; old: ThreadRecordDraft; next: ThreadRecordDraft }> {
        const lease = await store.acquireLease("k-atomic", "owner-a", LONG_TTL);
        const old = record("k-atomic", { createdAt: at(1) });
        await store.finalize({ leases: [lease], record: old });
        return { lease, old, next: record("k-atomic", { createdAt: at(2) }) };
      }

      for (const step of ["leases-checked", "archived", "record-written"] as const) {
        it(`finalize atomicity: a backend fault after step "${step}" rejects and leaves the old record active and the new one unwritten`, async () => {
          const { lease, old, next } = await seeded();
          const injected = faults.failAfterFinalizeStep(step);
          const err = await rejection(store.finalize({ leases: [lease], record: next, archiveId: old.id }));
          expect(walkError(err, (node) => node === injected)).toBe(true);
          expect(isError(err, ErrBusy) || isError(err, ErrLeaseLost) || isError(err, ErrAlreadyExists)).toBe(false);
          expect(await store.resolve({ id: old.id })).toStrictEqual(stored(old));
          expect(await store.resolve({ key: "k-atomic" })).toStrictEqual(stored(old));
          expect(await store.resolve({ id: next.id })).toBeUndefined();
        });
      }

      it("after a failed finalize the store stays usable: the retry under the same lease succeeds", async () => {
        const { lease, old, next } = await seeded();
        faults.failAfterFinalizeStep("record-written");
        await expect(store.finalize({ leases: [lease], record: next, archiveId: old.id })).rejects.toThrow();
        expect((await store.renewLease(lease, LONG_TTL)).token).toBe(lease.token);
        await store.finalize({ leases: [lease], record: next, archiveId: old.id });
        expect((await store.resolve({ key: "k-atomic" }))?.id).toBe(next.id);
        expect((await store.resolve({ id: old.id }))?.status).toBe("archived");
      });
    });

    describe("failures", () => {
      it("a backend failure is not ErrBusy: acquireLease on a broken backend rejects with an error that keeps its cause", async () => {
        const broken = await brokenStore();
        const err = await rejection(broken.acquireLease("t-broken", "owner-a", LONG_TTL));
        expect(err).toBeInstanceOf(Error);
        expect(err).not.toBeInstanceOf(BusyError);
        expect(isError(err, ErrBusy)).toBe(false);
        expect((err as Error).cause, BROKEN_CAUSE).toBeDefined();
      });

      it("a broken backend fails resolve, renew, release and finalize with ordinary errors, never Busy, LeaseLost or AlreadyExists", async () => {
        const broken = await brokenStore();
        const lease: Lease = { target: "t-broken", owner: "owner-a", token: 1, expiresAt: new Date(now() + LONG_TTL) };
        const calls: Promise<unknown>[] = [
          broken.resolve({ key: "t-broken" }),
          broken.resolve({ id: "some-id" }),
          broken.renewLease(lease, LONG_TTL),
          broken.releaseLease(lease),
          broken.finalize({ leases: [lease], record: record("t-broken") }),
        ];
        for (const err of await rejections(calls)) {
          expect(err).toBeInstanceOf(Error);
          expect(isError(err, ErrBusy) || isError(err, ErrLeaseLost) || isError(err, ErrAlreadyExists)).toBe(false);
          expect((err as Error).cause, BROKEN_CAUSE).toBeDefined();
        }
      });

      it("every method rejects after close(), never with Busy or LeaseLost, and close() is idempotent", async () => {
        const lease = await store.acquireLease("t-closed", "owner-a", LONG_TTL);
        await store.close();
        await expect(store.close()).resolves.toBeUndefined();
        const calls: Promise<unknown>[] = [
          store.resolve({ key: "t-closed" }),
          store.acquireLease("t-closed", "owner-b", LONG_TTL),
          store.renewLease(lease, LONG_TTL),
          store.releaseLease(lease),
          store.finalize({ leases: [lease], record: record("t-closed") }),
        ];
        for (const err of await rejections(calls)) {
          expect(err).toBeInstanceOf(Error);
          expect(isError(err, ErrBusy) || isError(err, ErrLeaseLost)).toBe(false);
        }
      });

      it("an aborted signal rejects with its reason before anything is taken or written", async () => {
        const controller = new AbortController();
        const reason = new Error("caller gave up");
        controller.abort(reason);
        await expect(store.acquireLease("t-abort", "owner-a", LONG_TTL, controller.signal)).rejects.toBe(reason);
        const rec = record("t-abort");
        await expect(store.finalize({ leases: [], record: rec }, controller.signal)).rejects.toBe(reason);
        await expect(store.resolve({ id: rec.id }, controller.signal)).rejects.toBe(reason);
        expect(await store.resolve({ id: rec.id })).toBeUndefined();
        expect((await store.acquireLease("t-abort", "owner-b", LONG_TTL)).owner).toBe("owner-b");
      });
    });
  });

  // Optional capabilities: each section skips its tests for a store without the capability.
  describePendingApprovalsConformance(name, makeStore, options);
  describeThreadCatalogConformance(name, makeStore);
}

/**
 * Keys every store must keep apart and give back exactly: case variants, NFC / NFD and
 * compatibility forms (never normalised), U+FFFD, emoji (joiners, flags, modifiers), RTL text and
 * marks, whitespace and invisible variants inside or around other text, SQL and path metacharacters.
 */
const VALID_KEYS: readonly string[] = [
  "tenant",
  "Tenant",
  "TENANT",
  "tEnAnT",
  "stra\u00dfe",
  "strasse",
  "STRASSE",
  "\u0130stanbul",
  "i\u0307stanbul",
  "\u03a3\u03c3\u03c2",
  "caf\u00e9",
  "cafe\u0301",
  "\u00c5",
  "A\u030a",
  "\u212b",
  "\ufb01",
  "fi",
  "\uff21",
  "A",
  "tenant\uFFFD",
  "\uFFFD",
  "\uFFFD\uFFFD",
  "a\uFFFDb",
  "\uFEFFtenant",
  "\uFFFF",
  "\uFDD0",
  "\u{1F600}",
  "\u{1F469}\u200D\u{1F4BB}",
  "\u{1F469}\u{1F4BB}",
  "\u{1F1F5}\u{1F1F1}",
  "\u{1F44D}\u{1F3FD}",
  "\u{1F44D}",
  "tenant-\u{1F680}",
  "\u{10FFFF}",
  "\u{1D11E}",
  "\u0645\u0631\u062d\u0628\u0627",
  "\u05e9\u05dc\u05d5\u05dd",
  "a\u200Fb",
  "a\u200Eb",
  "abc",
  "a b",
  "a  b",
  "a\u00a0b",
  "a\u2003b",
  "a\u3000b",
  "a\u200Bb",
  "ab",
  " a",
  "a ",
  "%",
  "_",
  "a%",
  "a_b",
  "axb",
  "*",
  "?",
  "'",
  '"',
  "\\",
  "a/b",
  "a\\b",
  "../x",
  "x;DROP TABLE t",
  "$1",
  ":key",
  "{}",
  "[]",
  "\u4e2d\u6587",
  "\u65e5\u672c\u8a9e",
  "\ud55c\uad6d\uc5b4",
  "\u0928\u092e\u0938\u094d\u0924\u0947",
];

/**
 * Keys every store must refuse with `InvalidThreadKeyError`: lone high and low surrogates (what
 * `key.slice(0, n)` through an emoji produces), a reversed pair, NUL anywhere, whitespace only,
 * other controls (C0, DEL, C1), bidi overrides and isolates, a 10 kB key.
 */
const INVALID_KEYS: readonly string[] = [
  "tenant\uD800",
  "tenant\uDBFF",
  "tenant\uDC00",
  "\uDFFF",
  "\uD83D",
  "\u{1F600}".slice(0, 1),
  "a\uDE00b",
  "\uDC00\uD800",
  "\u0000",
  "tenant\u0000",
  "\u0000tenant",
  "a\u0000b",
  " ",
  "\t",
  "\n",
  "\u3000",
  "a\tb",
  "a\nb",
  "a\r\nb",
  "\u0001",
  "a\u007fb",
  "\u0085",
  "\u202Eabc",
  "a\u2066b",
  "k".repeat(10_240),
  "\u{1F600}".repeat(2_560),
];

/** What a broken-backend clause expects of the error, said when its `cause` is missing. */
const BROKEN_CAUSE =
  "a backend failure must keep the backend's own error as its `cause` (e.g. new DriverError({ op, device, code: ErrCode.Internal, cause: backendError }) from @adaptor/errors), and this error has no cause";

/** `draft` as the store keeps it after its `revision`-th write. */
function stored(draft: ThreadRecordDraft, revision = 1): ThreadRecord {
  return { ...draft, revision };
}
