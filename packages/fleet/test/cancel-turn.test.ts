import { describe, expect, it } from "vitest";
import { Agent } from "adaptor";
import { FleetRunCancelledError, type RunHandle } from "@adaptor/fleet";
import { fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { onFakeCliFleet } from "./support/fake-cli-host.js";
import { freshSchema } from "./support/pg.js";
import { processesWith, until } from "./support/processes.js";

/** Waits for the first event of `type` in the run's log. */
async function reached(handle: RunHandle, type: string): Promise<void> {
  for await (const { event } of handle.events()) if (event.type === type) return;
  throw new Error(`no ${type} event`);
}

onFakeCliFleet("fleet cancel of a thread turn", ({ host }) => {
  describe("fleet cancel of a thread turn", () => {
    it("a running thread turn cancelled from another host: its verdict comes after its CLI is gone, and the next turn of the key starts after that", async () => {
      const schema = freshSchema("cancelturn");
      const front = await host(schema);
      const back = await host(schema);
      await back.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }), { concurrency: 2 });
      const first = `FLEET_CANCEL_FIRST_${schema}`;
      const next = `FLEET_CANCEL_NEXT_${schema}`;
      const long = { env: { ...fakeRun(fakeCodexSteps("never", { sleepMs: 120_000 })).env, [first]: "1" } };
      const handle = await front.submit("a long turn", { threadKey: "k", runOptions: long });
      const queued = await front.submit("the next turn", {
        threadKey: "k",
        runOptions: { env: { ...fakeRun(fakeCodexSteps("next done")).env, [next]: "1" } },
      });
      await reached(handle, "run-started");
      await until(() => processesWith(first).length > 0, "the long turn's CLI");
      expect(await handle.cancel("stop")).toBe(true);
      const error = await handle.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FleetRunCancelledError);
      expect((error as FleetRunCancelledError).reason).toBe("stop");
      // The verdict came after the cancelled turn's process was gone.
      expect(processesWith(first)).toEqual([]);
      expect((await queued.result()).text).toBe("next done");
    });

    it("two cancels of a running turn racing from two hosts: exactly one of them returns true, and the verdict is its cancel", async () => {
      const schema = freshSchema("cancelrace");
      const front = await host(schema);
      const other = await host(schema);
      const back = await host(schema);
      await back.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const long = fakeRun(fakeCodexSteps("never", { sleepMs: 120_000 }));
      const handle = await front.submit("a long turn", { threadKey: "race", runOptions: long });
      await reached(handle, "run-started");
      const outcomes = await Promise.all([handle.cancel("first"), other.handle(handle.id).cancel("second")]);
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      const error = await handle.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FleetRunCancelledError);
      expect((error as FleetRunCancelledError).reason).toBe(outcomes[0] ? "first" : "second");
      expect(await handle.cancel("late")).toBe(false);
    });
  });
});
