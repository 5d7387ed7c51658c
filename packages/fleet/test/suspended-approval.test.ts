import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "adaptor";
import { ApprovalNotPendingError } from "@adaptor/threadstore";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet } from "@adaptor/fleet";
import { fakeCliStoreView, fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";

// A fleet turn run with `runOptions.suspend` that ends suspended leaves its approval in the thread
// store, where no run waits on it: the fleet's approval reads do not list it, and an answer through
// the fleet is refused with a message that names the resume run that answers it.
if (!PG_URL) {
  skipWithoutServer("fleet suspended approval");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function host(schema: string, withStore: boolean): Promise<Fleet> {
    const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
    await store.migrate();
    const fleet = new Fleet({ connectionString: url, schema, ...(withStore ? { threadStore: fakeCliStoreView(store) } : {}) });
    await fleet.start();
    closers.push(async () => {
      await fleet.close();
      await store.close();
    });
    return fleet;
  }

  describe("fleet suspended approvals", () => {
    it("a suspended turn's approval is not the fleet's: approval() undefined, no pendingApprovals, answer() refused naming the resume", async () => {
      const schema = freshSchema("suspended");
      const front = await host(schema, true);
      await front.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const ask = { policy: { sandbox: "unrestricted" as const, approvals: { permission: "ask" as const } } };
      const handle = await front.submit("run ls", {
        threadKey: "paused",
        runOptions: { ...fakeRun(fakeCodexSteps("ran", { ask: "ls" })), ...ask, suspend: {} },
      });
      const result = await handle.result();
      expect(result.status).toBe("suspended");
      const id = result.pendingApproval!.id;
      expect(await front.approval(id)).toBeUndefined();
      expect(await front.pendingApprovals()).toEqual([]);
      expect(await handle.pendingApprovals()).toEqual([]);
      // A host with the thread store names the thread and the resume.
      const answered = await front.answer(id, { outcome: "approve" }).catch((e: unknown) => e);
      expect(answered).toBeInstanceOf(ApprovalNotPendingError);
      expect(answered).toMatchObject({ id, status: "unknown" });
      expect((answered as Error).message).toContain('a suspended turn of thread "paused" left it in the thread store');
      expect((answered as Error).message).toContain("resume: { approvalId, decision }");
      // A host without one says where a suspended turn's approvals are.
      const other = await host(schema, false);
      const elsewhere = await other.answer(id, { outcome: "approve" }).catch((e: unknown) => e);
      expect(elsewhere).toMatchObject({ id, status: "unknown" });
      expect((elsewhere as Error).message).toContain("no run of the fleet asked it (a suspended turn's approval is in the thread store");
    });
  });
}
