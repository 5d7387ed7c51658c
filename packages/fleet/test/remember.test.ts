// "Always allow" / "always deny" across hosts: an answer recorded with `remember` on one host is
// applied by the worker's run on another as `request.approve({ remember })` applies it in process,
// and the run's later asks the rule matches are answered on the worker without reaching any host.
import { afterEach, describe, expect, it } from "vitest";
import { Agent, InvalidOptionError } from "adaptor";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { Fleet, type RecordedAgentEvent, type RunHandle } from "@adaptor/fleet";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";

const NPM_TEST = { toolName: "shell", command: "npm test" };

/** The first approval the run asks: its id and suggestions (waits for it). */
async function firstAsk(handle: RunHandle): Promise<{ id: string; suggestions: unknown[] }> {
  for await (const { event } of handle.events())
    if (event.type === "approval-request") return (event as RecordedAgentEvent).request as { id: string; suggestions: unknown[] };
  throw new Error("no approval-request event");
}

/** Every event the run recorded, once it has its verdict. */
async function recorded(handle: RunHandle): Promise<Record<string, unknown>[]> {
  const events: Record<string, unknown>[] = [];
  for await (const { event } of handle.events()) events.push(event as Record<string, unknown>);
  return events;
}

if (!PG_URL) {
  skipWithoutServer("fleet remembered rules");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A front host and a worker host on a fresh schema; the worker's agent on the reference driver. */
  async function hosts(): Promise<{ front: Fleet; driver: ReferenceDriver }> {
    const schema = freshSchema("fleet_remember");
    const front = new Fleet({ connectionString: url, schema });
    const back = new Fleet({ connectionString: url, schema });
    closers.push(
      () => front.close(),
      () => back.close(),
    );
    const driver = new ReferenceDriver({ latencyMs: 0 });
    await back.worker(new Agent(driver), { concurrency: 1 });
    return { front, driver };
  }

  describe("fleet remembered rules", () => {
    it("an approve with remember answered on the front host answers the run's second ask on the worker: one approval asked, an approval.remembered notice in the fleet stream, both calls run", async () => {
      const { front, driver } = await hosts();
      const handle = await front.submit("TOOL npm test\nTOOL npm test");
      const asked = await firstAsk(handle);
      expect(asked.suggestions).toEqual([NPM_TEST]);
      await front.answer(asked.id, { outcome: "approve", remember: asked.suggestions[0] as typeof NPM_TEST });
      expect(await front.approval(asked.id)).toMatchObject({ status: "answered", decision: { outcome: "approve", remember: NPM_TEST } });
      expect((await handle.result()).text).toBe("Done: ran npm test");
      const events = await recorded(handle);
      expect(events.filter((e) => e["type"] === "approval-request")).toHaveLength(1);
      expect(events.find((e) => e["kind"] === "approval.remembered")?.["data"]).toMatchObject({
        id: asked.id,
        outcome: "approved",
        rule: NPM_TEST,
        scope: "run",
      });
      const byRule = events.filter((e) => e["kind"] === "approval.resolved" && (e["data"] as { rule?: unknown }).rule !== undefined);
      expect(byRule.map((e) => (e["data"] as { outcome: string }).outcome)).toEqual(["approved"]);
      expect(driver.toolRuns).toEqual(["npm test", "npm test"]);
      // No host saw a second approval: the fleet holds one row for the run.
      expect(await front.pendingApprovals()).toEqual([]);
    });

    it("a deny with remember denies the second ask with the host's reason", async () => {
      const { front, driver } = await hosts();
      const handle = await front.submit("TOOL npm test\nTOOL npm test");
      const asked = await firstAsk(handle);
      await front.answer(asked.id, { outcome: "deny", reason: "not on this host", remember: NPM_TEST });
      expect((await handle.result()).text).toBe("Done: denied: not on this host");
      const events = await recorded(handle);
      expect(events.filter((e) => e["type"] === "approval-request")).toHaveLength(1);
      expect(driver.toolRuns).toEqual([]);
    });

    it("a rule that does not match, a malformed one, one with an edit and an allow in a read_only run are refused with InvalidOptionError (subject fleet answer), nothing recorded", async () => {
      const { front } = await hosts();
      const handle = await front.submit("TOOL npm test", { runOptions: { policy: { sandbox: "read_only" } } });
      const asked = await firstAsk(handle);
      const refusals: [unknown, string][] = [
        [{ outcome: "approve", remember: { toolName: "shell", command: "make" } }, "remember"],
        [{ outcome: "deny", remember: { scope: "run" } }, "remember.toolName"],
        [{ outcome: "approve", remember: { ...NPM_TEST, scope: "thread" } }, "remember.scope"],
        [{ outcome: "approve", updatedInput: { command: "npm test" }, remember: NPM_TEST }, "remember"],
        [{ outcome: "approve", remember: NPM_TEST }, "remember"],
        [{ outcome: "answer", choice: "x", remember: NPM_TEST }, "decision.remember"],
      ];
      for (const [decision, field] of refusals) {
        const error = await front.answer(asked.id, decision as never).catch((e: unknown) => e);
        expect(error, JSON.stringify(decision)).toBeInstanceOf(InvalidOptionError);
        expect(error).toMatchObject({ subject: "fleet answer", field });
        expect((await front.approval(asked.id))?.status).toBe("pending");
      }
      const readOnly = await front.answer(asked.id, { outcome: "approve", remember: NPM_TEST }).catch((e: unknown) => e);
      expect((readOnly as Error).message).toContain('policy.sandbox is "read_only"');
      // A remembered deny is taken under read_only.
      await front.answer(asked.id, { outcome: "deny", reason: "no", remember: NPM_TEST });
      expect((await handle.result()).text).toBe("Done: denied: no");
      expect((await recorded(handle)).some((e) => e["kind"] === "approval.remembered")).toBe(true);
    });
  });
}
