import { setTimeout as sleep } from "node:timers/promises";
import { findError } from "@adaptor/errors";
import { afterEach, beforeEach, describe, expect, it, type TestContext } from "vitest";
import type { ThreadStore } from "../contract/thread-store.js";
import type { ThreadRecordDraft } from "../contract/thread-record.js";
import { supportsPendingApprovals } from "../contract/pending-approvals.js";
import { supportsThreadCatalog, type ThreadCatalogStore, type ThreadSummary } from "../contract/thread-catalog.js";
import { BusyError } from "../errors/busy-error.js";
import { InvalidThreadKeyError } from "../errors/invalid-thread-key-error.js";
import type { ConformanceHarness, MakeConformanceStore } from "./conformance.js";
import { FaultPlan } from "./fault-plan.js";
import { at, record } from "./sample-record.js";

const LONG_TTL = 60_000;

/**
 * Registers the conformance tests of the optional thread-catalog capability
 * (`ThreadCatalogStore`: `listThreads`, `deleteThread`) as a vitest `describe` block named
 * `ThreadStore conformance: <name> / thread catalog`. Each test is skipped for a store without the
 * capability (`supportsThreadCatalog(store)` false). `describeThreadStoreConformance` calls it;
 * call it yourself only to run this section alone.
 */
export function describeThreadCatalogConformance(name: string, makeStore: MakeConformanceStore): void {
  describe(`ThreadStore conformance: ${name} / thread catalog`, () => {
    let h: ConformanceHarness;
    let store: ThreadStore & ThreadCatalogStore;
    let supported = false;

    beforeEach(async () => {
      h = await makeStore({ faults: new FaultPlan(), broken: false });
      supported = supportsThreadCatalog(h.store);
      store = h.store as ThreadStore & ThreadCatalogStore;
    });

    afterEach(async () => {
      await h.store.close();
      await h.cleanup?.();
    });

    const need = (ctx: TestContext): void => {
      if (!supported) ctx.skip();
    };
    /**
     * Lets a lease of `ttl` ms (granted just now) lapse, its expiry then well in the past: the
     * manual clock moves `ttl` plus 10 s; otherwise real time passes `ttl` plus 1.5 s.
     */
    const lapse = async (ttl: number): Promise<void> => {
      if (h.clock) await h.clock.advance(ttl + 10_000);
      else await sleep(ttl + 1_500);
    };

    /** Commits `draft` as the key's active record (archiving `archiveId`) under a fresh lease, then releases it. */
    const commit = async (draft: ThreadRecordDraft, archiveId?: string): Promise<void> => {
      const lease = await store.acquireLease(draft.key, "catalog-writer", LONG_TTL);
      await store.finalize({ leases: [lease], record: draft, ...(archiveId !== undefined ? { archiveId } : {}) });
      await store.releaseLease(lease);
    };

    it("lists the keys with an active record in UTF-8 byte order, each with its active record's summary", async (ctx) => {
      need(ctx);
      // Byte order differs from UTF-16 order here: U+FF21 sorts before U+1F600 in UTF-8, after it in UTF-16.
      const keys = ["b", "a", "\u{1F600}", "\uff21", "B", "a/b", "a b"];
      for (const [i, key] of keys.entries()) await commit(record(key, { createdAt: at(i) }));
      const page = await store.listThreads();
      expect(page.threads.map((t) => t.key)).toEqual(["B", "a", "a b", "a/b", "b", "\uff21", "\u{1F600}"]);
      expect(page.nextCursor).toBeUndefined();
      const a = page.threads.find((t) => t.key === "a");
      const created = at(1);
      expect(a).toStrictEqual({
        key: "a",
        recordId: a?.recordId ?? "missing",
        driverType: "claude",
        identity: "tenant-1/user-1",
        createdAt: created,
        updatedAt: new Date(created.getTime() + 500),
        revision: 1,
        archivedRecords: 0,
        sessionStateBytes: 0,
      } satisfies ThreadSummary);
      expect((await store.resolve({ key: "a" }))?.id).toBe(a?.recordId);
    });

    it("a replaced conversation counts as archived and the summary shows the new active record", async (ctx) => {
      need(ctx);
      const first = record("replaced", { createdAt: at(0) });
      await commit(first);
      const second = record("replaced", { createdAt: at(10), driverType: "codex" });
      await commit(second, first.id);
      const [summary] = (await store.listThreads()).threads;
      expect(summary?.recordId).toBe(second.id);
      expect(summary?.driverType).toBe("codex");
      expect(summary?.archivedRecords).toBe(1);
    });

    it("a prefix matches exactly: no case folding, and % _ \\ are plain characters", async (ctx) => {
      need(ctx);
      for (const [i, key] of ["tenant-1/a", "tenant-1/b", "Tenant-1/c", "tenant-10/d", "t%x", "t_x", "tax", "t\\x"].entries())
        await commit(record(key, { createdAt: at(i) }));
      const keysOf = async (prefix: string): Promise<string[]> => (await store.listThreads({ prefix })).threads.map((t) => t.key);
      expect(await keysOf("tenant-1/")).toEqual(["tenant-1/a", "tenant-1/b"]);
      expect(await keysOf("tenant-1")).toEqual(["tenant-1/a", "tenant-1/b", "tenant-10/d"]);
      expect(await keysOf("t%")).toEqual(["t%x"]);
      expect(await keysOf("t_")).toEqual(["t_x"]);
      expect(await keysOf("t\\")).toEqual(["t\\x"]);
      expect(await keysOf("nobody")).toEqual([]);
    });

    it("pages follow the cursor: every key exactly once, the last page without a cursor", async (ctx) => {
      need(ctx);
      const keys = ["k1", "k2", "k3", "k4", "k5"];
      for (const [i, key] of keys.entries()) await commit(record(key, { createdAt: at(i) }));
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.listThreads({ limit: 2, prefix: "k", ...(cursor !== undefined ? { cursor } : {}) });
        seen.push(...page.threads.map((t) => t.key));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor !== undefined && pages < 10);
      expect(seen).toEqual(keys);
      expect(pages).toBe(3);
      const exact = await store.listThreads({ limit: 5 });
      expect(exact.threads).toHaveLength(5);
      expect(exact.nextCursor).toBeUndefined();
    });

    it("a limit outside [1, 1000] or a non-string prefix is refused before the backend is asked", async (ctx) => {
      need(ctx);
      for (const limit of [0, -1, 1.5, 1001, Number.NaN]) await expect(store.listThreads({ limit })).rejects.toBeInstanceOf(RangeError);
      await expect(store.listThreads({ prefix: 7 as unknown as string })).rejects.toBeInstanceOf(TypeError);
    });

    it("deleteThread removes the active and archived records, their session state and the key's approvals; other keys stay", async (ctx) => {
      need(ctx);
      const old = record("doomed", { createdAt: at(0) });
      await commit(old);
      const lease = await store.acquireLease("doomed", "catalog-writer", LONG_TTL);
      const current = record("doomed", { createdAt: at(5) });
      const sessionState = store.sessionState
        ? { sessionState: { mode: "replace" as const, segments: [new Uint8Array([1, 2, 3])], manifest: { v: 1 }, limitBytes: 1_000 } }
        : {};
      await store.finalize({ leases: [lease], record: current, archiveId: old.id, ...sessionState });
      if (supportsPendingApprovals(store)) {
        await store.savePendingApproval(
          {
            id: `catalog-${current.id}`,
            key: "doomed",
            kind: "permission",
            title: "Bash: rm",
            createdAt: new Date(0),
            onDeadline: "deny",
            turn: null,
          },
          lease,
        );
      }
      await store.releaseLease(lease);
      await commit(record("kept", { createdAt: at(1) }));
      expect((await store.listThreads()).threads.find((t) => t.key === "doomed")?.sessionStateBytes).toBe(store.sessionState ? 3 : 0);

      const deleted = await store.deleteThread("doomed");
      expect(deleted).toStrictEqual({ records: 2, approvals: supportsPendingApprovals(store) ? 1 : 0 });
      expect(await store.resolve({ key: "doomed", includeArchived: true })).toBeUndefined();
      expect(await store.resolve({ id: old.id })).toBeUndefined();
      expect(await store.sessionState?.read(current.id)).toBeUndefined();
      if (supportsPendingApprovals(store)) {
        expect(await store.listPendingApprovals("doomed")).toEqual([]);
        expect(await store.getPendingApproval(`catalog-${current.id}`)).toBeUndefined();
      }
      expect((await store.listThreads()).threads.map((t) => t.key)).toEqual(["kept"]);
      // The lease row stays: the next holder of the key gets a higher fencing token.
      expect((await store.acquireLease("doomed", "catalog-writer", LONG_TTL)).token).toBeGreaterThan(lease.token);
    });

    it("deleteThread refuses with BusyError while a live lease is held on the key and deletes nothing", async (ctx) => {
      need(ctx);
      const draft = record("in-use", { createdAt: at(0) });
      await commit(draft);
      const lease = await store.acquireLease("in-use", "turn-runner", LONG_TTL);
      const err = await store.deleteThread("in-use").catch((e: unknown) => e);
      const busy = findError(err, BusyError);
      expect(busy?.target).toBe("in-use");
      expect(busy?.owner).toBe("turn-runner");
      expect(busy?.expiresAt?.getTime()).toBe(lease.expiresAt.getTime());
      expect(busy?.message).toContain('held by "turn-runner"');
      expect((await store.resolve({ key: "in-use" }))?.id).toBe(draft.id);
      await store.releaseLease(lease);
      expect(await store.deleteThread("in-use")).toStrictEqual({ records: 1, approvals: 0 });
    });

    it("deleteThread goes ahead over an expired lease (a crashed turn's): the key is deleted and its fencing tokens keep increasing", async (ctx) => {
      need(ctx);
      const draft = record("crashed", { createdAt: at(0) });
      await commit(draft);
      const ttl = h.clock ? 10_000 : 1;
      const lapsed = await store.acquireLease("crashed", "crashed-worker", ttl);
      await lapse(ttl);
      expect(await store.deleteThread("crashed")).toStrictEqual({ records: 1, approvals: 0 });
      expect(await store.resolve({ key: "crashed", includeArchived: true })).toBeUndefined();
      expect((await store.acquireLease("crashed", "next-worker", LONG_TTL)).token).toBeGreaterThan(lapsed.token);
    });

    it("sessionStateBytes counts the active record's session state only, not the archived records' (stores with session state)", async (ctx) => {
      need(ctx);
      const state = store.sessionState;
      if (!state) return ctx.skip();
      const lease = await store.acquireLease("state-bytes", "catalog-writer", LONG_TTL);
      const old = record("state-bytes", { createdAt: at(0) });
      const write = (mode: "append" | "replace", length: number) => ({
        sessionState: { mode, segments: [new Uint8Array(length)], manifest: { length }, limitBytes: 1_000_000 },
      });
      await store.finalize({ leases: [lease], record: old, ...write("replace", 1_000) });
      const current = record("state-bytes", { createdAt: at(5) });
      await store.finalize({ leases: [lease], record: current, archiveId: old.id, ...write("replace", 10) });
      await store.finalize({ leases: [lease], record: current, ...write("append", 5) });
      await store.releaseLease(lease);
      const [summary] = (await store.listThreads()).threads;
      expect(summary).toMatchObject({ key: "state-bytes", recordId: current.id, archivedRecords: 1, sessionStateBytes: 15 });
      expect((await state.read(old.id))?.bytes).toBe(1_000);
    });

    it("deleteThread of an unknown key removes nothing; a malformed key is refused", async (ctx) => {
      need(ctx);
      expect(await store.deleteThread("never-used")).toStrictEqual({ records: 0, approvals: 0 });
      expect(findError(await store.deleteThread("bad\u0000key").catch((e: unknown) => e), InvalidThreadKeyError)).toBeDefined();
    });
  });
}
