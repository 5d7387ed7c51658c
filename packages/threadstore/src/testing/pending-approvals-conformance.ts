import { setTimeout as sleep } from "node:timers/promises";
import { findError } from "@adaptor/errors";
import { afterEach, beforeEach, describe, expect, it, type TestContext } from "vitest";
import type { ThreadStore } from "../contract/thread-store.js";
import {
  DEADLINE_PASSED_REASON,
  supportsPendingApprovals,
  type PendingApprovalDraft,
  type PendingApprovalStore,
} from "../contract/pending-approvals.js";
import { ApprovalNotPendingError } from "../errors/approval-not-pending-error.js";
import { InvalidThreadKeyError } from "../errors/invalid-thread-key-error.js";
import { LeaseLostError } from "../errors/lease-lost-error.js";
import type { ConformanceHarness, ConformanceOptions, MakeConformanceStore } from "./conformance.js";
import { FaultPlan } from "./fault-plan.js";

const LONG_TTL = 60_000;
/**
 * Without a controllable clock: how long before its deadline an approval is saved, so that it is
 * surely answered before the deadline passes (well above any store round trip on a busy machine).
 */
const ANSWER_WINDOW_MS = 3_000;

let counter = 0;

/** A draft with every optional field set (JSON values of several shapes). */
function draft(key: string, overrides: Partial<PendingApprovalDraft> = {}): PendingApprovalDraft {
  counter += 1;
  return {
    id: `pa-${process.pid}-${Date.now()}-${counter}`,
    key,
    kind: "permission",
    title: "Write: /work/notes.md",
    toolName: "Write",
    toolCallId: "toolu_01",
    input: { file_path: "/work/notes.md", content: "héllo\n😀", nested: [1, null, { deep: true }] },
    choices: [
      { key: "yes", label: "Yes", description: "do it" },
      { key: "no", label: "No" },
    ],
    createdAt: new Date(Math.floor(Date.now() / 1000) * 1000),
    onDeadline: "deny",
    checkpoint: { recordId: "rec-1", revision: 3 },
    turn: { prompt: "write the notes", settings: { a: 1 } },
    ...overrides,
  };
}

/**
 * Registers the conformance tests of the optional pending-approvals capability
 * (`PendingApprovalStore`) as a vitest `describe` block named
 * `ThreadStore conformance: <name> / pending approvals`. Each test is skipped for a store without
 * the capability (`supportsPendingApprovals(store)` false). `describeThreadStoreConformance` calls it;
 * call it yourself only to run this section alone.
 */
export function describePendingApprovalsConformance(name: string, makeStore: MakeConformanceStore, options: ConformanceOptions = {}): void {
  const shortTtl = options.shortTtlMs ?? 200;
  const margin = options.expiryMarginMs ?? 80;

  describe(`ThreadStore conformance: ${name} / pending approvals`, () => {
    let h: ConformanceHarness;
    let store: ThreadStore & PendingApprovalStore;
    let supported = false;

    beforeEach(async () => {
      h = await makeStore({ faults: new FaultPlan(), broken: false });
      supported = supportsPendingApprovals(h.store);
      store = h.store as ThreadStore & PendingApprovalStore;
    });

    afterEach(async () => {
      await h.store.close();
      await h.cleanup?.();
    });

    /** Skips the test for a store without the capability. */
    const need = (ctx: TestContext): void => {
      if (!supported) ctx.skip();
    };
    /** Lets `ms` pass on the store's clock (a manual clock moves; otherwise real time passes). */
    const elapse = async (ms: number): Promise<void> => {
      if (h.clock) await h.clock.advance(ms);
      else await sleep(ms + margin);
    };
    const now = (): number => (h.clock ? h.clock.now() : new Date()).getTime();

    it("a saved approval lists under its key and reads by id with every field intact, status pending", async (ctx) => {
      need(ctx);
      const lease = await store.acquireLease("pa-key", "worker-a", LONG_TTL);
      const d = draft("pa-key", { deadline: new Date(now() + 3_600_000) });
      const saved = await store.savePendingApproval(d, lease);
      expect(saved).toEqual({ ...d, status: "pending" });
      expect(await store.listPendingApprovals("pa-key")).toEqual([{ ...d, status: "pending" }]);
      expect(await store.getPendingApproval(d.id)).toEqual({ ...d, status: "pending" });
      expect(await store.listPendingApprovals("other-key")).toEqual([]);
      expect(await store.getPendingApproval("no-such-approval")).toBeUndefined();
    });

    it("a minimal approval (no tool, input, choices, deadline or checkpoint) comes back without them", async (ctx) => {
      need(ctx);
      const lease = await store.acquireLease("pa-min", "worker-a", LONG_TTL);
      const d: PendingApprovalDraft = {
        id: `pa-min-${Date.now()}`,
        key: "pa-min",
        kind: "question",
        title: "",
        createdAt: new Date(1_000),
        onDeadline: "abort",
        turn: null,
      };
      await store.savePendingApproval(d, lease);
      const got = await store.getPendingApproval(d.id);
      expect(got).toEqual({ ...d, status: "pending" });
      expect(Object.keys(got ?? {}).sort()).toEqual(["createdAt", "id", "key", "kind", "onDeadline", "status", "title", "turn"]);
    });

    it("listing is oldest first and shows only the key's approvals", async (ctx) => {
      need(ctx);
      const lease = await store.acquireLease("pa-order", "worker-a", LONG_TTL);
      const other = await store.acquireLease("pa-order-2", "worker-a", LONG_TTL);
      const late = draft("pa-order", { createdAt: new Date(2_000_000) });
      const early = draft("pa-order", { createdAt: new Date(1_000_000) });
      await store.savePendingApproval(late, lease);
      await store.savePendingApproval(early, lease);
      await store.savePendingApproval(draft("pa-order-2"), other);
      expect((await store.listPendingApprovals("pa-order")).map((a) => a.id)).toEqual([early.id, late.id]);
    });

    it("saving needs a valid lease on the approval's key: a released, stale, expired or foreign lease fails with LeaseLostError and writes nothing", async (ctx) => {
      need(ctx);
      const released = await store.acquireLease("pa-lease", "worker-a", LONG_TTL);
      await store.releaseLease(released);
      const d1 = draft("pa-lease");
      expect(findError(await store.savePendingApproval(d1, released).catch((e: unknown) => e), LeaseLostError)).toBeDefined();
      const live = await store.acquireLease("pa-lease", "worker-b", LONG_TTL);
      const stale = { ...live, token: live.token - 1 };
      expect(findError(await store.savePendingApproval(draft("pa-lease"), stale).catch((e: unknown) => e), LeaseLostError)).toBeDefined();
      const foreign = await store.acquireLease("pa-lease-other", "worker-b", LONG_TTL);
      expect(findError(await store.savePendingApproval(draft("pa-lease"), foreign).catch((e: unknown) => e), LeaseLostError)).toBeDefined();
      const ttl = h.clock ? 10_000 : shortTtl;
      const lapsing = await store.acquireLease("pa-lease-lapse", "worker-b", ttl);
      await elapse(ttl);
      expect(
        findError(await store.savePendingApproval(draft("pa-lease-lapse"), lapsing).catch((e: unknown) => e), LeaseLostError),
      ).toBeDefined();
      // The store judges the lease by its own record, never by the expiresAt or owner of the object passed in.
      const extended = { ...lapsing, expiresAt: new Date(now() + LONG_TTL) };
      expect(
        findError(await store.savePendingApproval(draft("pa-lease-lapse"), extended).catch((e: unknown) => e), LeaseLostError),
        "savePendingApproval trusted the expiresAt of the lease passed in: judge expiry by the stored lease",
      ).toBeDefined();
      const renamed = { ...live, owner: "worker-z" };
      expect(
        findError(await store.savePendingApproval(draft("pa-lease"), renamed).catch((e: unknown) => e), LeaseLostError),
        "savePendingApproval accepted a lease whose owner is not the stored one",
      ).toBeDefined();
      expect(await store.listPendingApprovals("pa-lease")).toEqual([]);
      expect(await store.listPendingApprovals("pa-lease-lapse")).toEqual([]);
      expect(await store.getPendingApproval(d1.id)).toBeUndefined();
    });

    it("an answer is recorded once: the second answer fails with ApprovalNotPendingError (answered) and the first stands", async (ctx) => {
      need(ctx);
      const lease = await store.acquireLease("pa-answer", "worker-a", LONG_TTL);
      const d = draft("pa-answer");
      await store.savePendingApproval(d, lease);
      await store.releaseLease(lease); // answering needs no lease
      const answered = await store.answerPendingApproval(d.id, { outcome: "approve", updatedInput: { file_path: "/x", content: "y" } });
      expect(answered.status).toBe("answered");
      expect(answered.decision).toEqual({ outcome: "approve", updatedInput: { file_path: "/x", content: "y" } });
      expect(answered.resolvedAt).toBeInstanceOf(Date);
      const second = findError(
        await store.answerPendingApproval(d.id, { outcome: "deny", reason: "no" }).catch((e: unknown) => e),
        ApprovalNotPendingError,
      );
      expect(second?.status).toBe("answered");
      expect(second?.id).toBe(d.id);
      expect(await store.getPendingApproval(d.id)).toEqual(answered);
      expect(await store.listPendingApprovals("pa-answer")).toEqual([answered]);
    });

    it("answering an unknown id fails with ApprovalNotPendingError (unknown)", async (ctx) => {
      need(ctx);
      const error = findError(
        await store.answerPendingApproval("no-such-approval", { outcome: "answer", choice: "yes" }).catch((e: unknown) => e),
        ApprovalNotPendingError,
      );
      expect(error?.status).toBe("unknown");
    });

    it("10 concurrent answers: exactly one wins, nine get ApprovalNotPendingError", async (ctx) => {
      need(ctx);
      const lease = await store.acquireLease("pa-race", "worker-a", LONG_TTL);
      const d = draft("pa-race");
      await store.savePendingApproval(d, lease);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store.answerPendingApproval(d.id, { outcome: "deny", reason: `host ${i}` })),
      );
      const won = outcomes.filter((o) => o.status === "fulfilled");
      expect(won).toHaveLength(1);
      for (const lost of outcomes.filter((o) => o.status === "rejected")) {
        expect(findError((lost as PromiseRejectedResult).reason, ApprovalNotPendingError)?.status).toBe("answered");
      }
      const winner = (won[0] as PromiseFulfilledResult<{ decision?: unknown }>).value.decision;
      expect((await store.getPendingApproval(d.id))?.decision).toEqual(winner);
    });

    it("past its deadline an approval is expired with its fallback recorded once, at the next access, and can no longer be answered", async (ctx) => {
      need(ctx);
      const lease = await store.acquireLease("pa-deadline", "worker-a", LONG_TTL);
      const wait = h.clock ? 10_000 : shortTtl;
      const d = draft("pa-deadline", { deadline: new Date(now() + wait), onDeadline: "abort" });
      const keep = draft("pa-deadline", { deadline: new Date(now() + 3_600_000) });
      await store.savePendingApproval(d, lease);
      await store.savePendingApproval(keep, lease);
      await store.releaseLease(lease);
      await elapse(wait);
      // Nobody touched the store when the deadline passed: the fallback is applied now.
      const [expired, pending] = await store.listPendingApprovals("pa-deadline");
      expect(expired?.id).toBe(d.id);
      expect(expired?.status).toBe("expired");
      expect(expired?.onDeadline).toBe("abort");
      expect(expired?.decision).toEqual({ outcome: "deny", reason: DEADLINE_PASSED_REASON });
      expect(expired?.resolvedAt).toBeInstanceOf(Date);
      expect(pending?.status).toBe("pending");
      await elapse(h.clock ? 5_000 : 50);
      // Once: later accesses see the same record, not a second expiry.
      expect(await store.getPendingApproval(d.id)).toEqual(expired);
      const late = findError(
        await store.answerPendingApproval(d.id, { outcome: "approve" }).catch((e: unknown) => e),
        ApprovalNotPendingError,
      );
      expect(late?.status).toBe("expired");
      expect(await store.getPendingApproval(d.id)).toEqual(expired);
    });

    it("a draft's deadlineMs is judged by the store's clock: the host's estimated deadline is not what it keeps", async (ctx) => {
      need(ctx);
      const lease = await store.acquireLease("pa-store-clock", "worker-a", LONG_TTL);
      const hour = 3_600_000;
      // A suspending host whose clock runs an hour behind estimates a deadline already past.
      const d = draft("pa-store-clock", { deadline: new Date(now() - hour), deadlineMs: hour });
      const before = now();
      const saved = await store.savePendingApproval(d, lease);
      const after = now();
      expect(saved).not.toHaveProperty("deadlineMs");
      // The store's clock, read at the save (a store on this machine; a minute's slack for a database's own clock).
      expect(saved.deadline?.getTime()).toBeGreaterThanOrEqual(before + hour - 60_000);
      expect(saved.deadline?.getTime()).toBeLessThanOrEqual(after + hour + 60_000);
      const listed = await store.listPendingApprovals("pa-store-clock");
      expect(listed.map((a) => a.status)).toEqual(["pending"]);
      expect(listed[0]).toEqual(saved);
      expect(await store.getPendingApproval(d.id)).toEqual(saved);
    });

    it("an approval saved with deadlineMs expires once that long has passed on the store's clock, whatever the host estimated", async (ctx) => {
      need(ctx);
      const lease = await store.acquireLease("pa-store-clock-2", "worker-a", LONG_TTL);
      const wait = h.clock ? 10_000 : shortTtl;
      // A host whose clock runs ahead estimates a deadline an hour later than the store's.
      const d = draft("pa-store-clock-2", { deadline: new Date(now() + 3_600_000), deadlineMs: wait });
      await store.savePendingApproval(d, lease);
      await store.releaseLease(lease);
      await elapse(wait);
      const [expired] = await store.listPendingApprovals("pa-store-clock-2");
      expect(expired?.status).toBe("expired");
      expect(expired?.decision).toEqual({ outcome: "deny", reason: DEADLINE_PASSED_REASON });
    });

    it("savePendingApproval refuses a deadlineMs that is negative, not a number or past 2^31-1", async (ctx) => {
      need(ctx);
      const lease = await store.acquireLease("pa-bad-ms", "worker-a", LONG_TTL);
      for (const deadlineMs of [-1, Number.NaN, 2 ** 31, "5" as unknown as number]) {
        await expect(store.savePendingApproval(draft("pa-bad-ms", { deadlineMs }), lease)).rejects.toThrow(TypeError);
      }
      expect(await store.listPendingApprovals("pa-bad-ms")).toEqual([]);
    });

    it("keeps its own copy of a draft: changing the draft's deadline or input after the save changes nothing stored", async (ctx) => {
      need(ctx);
      const lease = await store.acquireLease("pa-copy", "worker-a", LONG_TTL);
      const deadline = new Date(now() + 3_600_000);
      const d = draft("pa-copy", { deadline });
      const saved = await store.savePendingApproval(d, lease);
      const kept = saved.deadline!.getTime();
      expect(kept).toBe(deadline.getTime());
      deadline.setTime(now() - 3_600_000);
      (d.input as { file_path: string }).file_path = "/etc/passwd";
      const stored = await store.getPendingApproval(d.id);
      expect(stored?.status).toBe("pending");
      expect(stored?.deadline?.getTime()).toBe(kept);
      expect(stored?.input).toEqual(saved.input);
      expect((stored?.input as { file_path: string }).file_path).toBe("/work/notes.md");
    });

    it("an approval answered before its deadline keeps its answer once the deadline passes: only a pending one expires", async (ctx) => {
      need(ctx);
      const lease = await store.acquireLease("pa-answered", "worker-a", LONG_TTL);
      // Without a clock, the answer has ANSWER_WINDOW_MS to land; the reads come a second after the deadline.
      const window = h.clock ? 10_000 : ANSWER_WINDOW_MS;
      const deadline = new Date(now() + window);
      const d = draft("pa-answered", { deadline });
      const unanswered = draft("pa-answered", { deadline });
      await store.savePendingApproval(d, lease);
      await store.savePendingApproval(unanswered, lease);
      const answered = await store.answerPendingApproval(d.id, { outcome: "approve" });
      expect(answered.status).toBe("answered");
      await elapse(window + 1_000);
      // The deadline has passed on the store's clock: the unanswered one expires, the answered one stays as answered.
      expect((await store.getPendingApproval(unanswered.id))?.status).toBe("expired");
      expect(await store.getPendingApproval(d.id)).toEqual(answered);
      expect((await store.listPendingApprovals("pa-answered")).find((a) => a.id === d.id)).toEqual(answered);
      const again = findError(
        await store.answerPendingApproval(d.id, { outcome: "deny", reason: "late" }).catch((e: unknown) => e),
        ApprovalNotPendingError,
      );
      expect(again?.status).toBe("answered");
      expect(await store.getPendingApproval(d.id)).toEqual(answered);
    });

    it("an answer arriving after the deadline, as the first access, fails with ApprovalNotPendingError (expired)", async (ctx) => {
      need(ctx);
      const lease = await store.acquireLease("pa-deadline-2", "worker-a", LONG_TTL);
      const wait = h.clock ? 10_000 : shortTtl;
      const d = draft("pa-deadline-2", { deadline: new Date(now() + wait) });
      await store.savePendingApproval(d, lease);
      await elapse(wait);
      const late = findError(
        await store.answerPendingApproval(d.id, { outcome: "approve" }).catch((e: unknown) => e),
        ApprovalNotPendingError,
      );
      expect(late?.status).toBe("expired");
      expect((await store.getPendingApproval(d.id))?.decision).toEqual({ outcome: "deny", reason: DEADLINE_PASSED_REASON });
    });

    it("closing needs a valid lease on the key; a closed approval is no longer listed, keeps its decision and cannot be answered", async (ctx) => {
      need(ctx);
      const lease = await store.acquireLease("pa-close", "worker-a", LONG_TTL);
      const d = draft("pa-close");
      await store.savePendingApproval(d, lease);
      await store.answerPendingApproval(d.id, { outcome: "answer", choice: "yes" });
      await store.releaseLease(lease);
      expect(findError(await store.closePendingApproval(d.id, lease).catch((e: unknown) => e), LeaseLostError)).toBeDefined();
      expect((await store.getPendingApproval(d.id))?.status).toBe("answered");
      const next = await store.acquireLease("pa-close", "worker-b", LONG_TTL);
      const closed = await store.closePendingApproval(d.id, next);
      expect(closed.status).toBe("closed");
      expect(closed.decision).toEqual({ outcome: "answer", choice: "yes" });
      expect(await store.closePendingApproval(d.id, next)).toEqual(closed);
      expect(await store.listPendingApprovals("pa-close")).toEqual([]);
      expect(await store.getPendingApproval(d.id)).toEqual(closed);
      expect(
        findError(await store.answerPendingApproval(d.id, { outcome: "approve" }).catch((e: unknown) => e), ApprovalNotPendingError)
          ?.status,
      ).toBe("closed");
      expect(
        findError(await store.closePendingApproval("no-such-approval", next).catch((e: unknown) => e), ApprovalNotPendingError)?.status,
      ).toBe("unknown");
    });

    it("bad input is refused before the backend: an invalid key (InvalidThreadKeyError), an empty id or a bad decision (TypeError); a duplicate id is refused", async (ctx) => {
      need(ctx);
      const lease = await store.acquireLease("pa-bad", "worker-a", LONG_TTL);
      expect(findError(await store.listPendingApprovals("bad\0key").catch((e: unknown) => e), InvalidThreadKeyError)).toBeDefined();
      expect(
        findError(await store.savePendingApproval(draft("\ud800"), lease).catch((e: unknown) => e), InvalidThreadKeyError),
      ).toBeDefined();
      const d = draft("pa-bad");
      await store.savePendingApproval(d, lease);
      // A second save of one id is refused (by the check or the backend's key constraint), the first kept.
      await expect(store.savePendingApproval({ ...d, title: "changed" }, lease)).rejects.toThrow();
      await expect(store.getPendingApproval("")).rejects.toBeInstanceOf(TypeError);
      await expect(store.answerPendingApproval(d.id, { outcome: "maybe" } as never)).rejects.toBeInstanceOf(TypeError);
      await expect(store.savePendingApproval({ ...draft("pa-bad"), onDeadline: "later" } as never, lease)).rejects.toBeInstanceOf(
        TypeError,
      );
      expect(await store.getPendingApproval(d.id)).toEqual({ ...d, status: "pending" });
    });
  });
}
