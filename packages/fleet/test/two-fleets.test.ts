import { afterEach, describe, expect, it } from "vitest";
import { Agent, ErrThreadBusy } from "adaptor";
import { isError } from "@adaptor/errors";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet } from "@adaptor/fleet";
import { fakeCodex, fakeCodexSteps, fakeCliStoreView, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";
import { until } from "./support/processes.js";

// Two fleets (two schemas, so two pg-boss instances that know nothing of each other) sharing one
// thread store: each serializes its own turns of a key, so only the thread store's lease keeps a
// turn of one fleet from running on a key while a turn of the other holds it.
if (!PG_URL) {
  skipWithoutServer("two fleets on one thread store");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  describe("two fleets on one thread store", () => {
    it("a turn of the second fleet on a key the first fleet's turn holds is refused busy; the first turn commits and is the thread's record", async () => {
      const schema = freshSchema("two_fleets");
      const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
      await store.migrate();
      closers.push(() => store.close());
      // Fleet A's commit waits until fleet B's turn has its verdict, so the two turns would overlap.
      let bSettled!: () => void;
      const bDone = new Promise<void>((r) => (bSettled = r));
      let aCommitting = false;
      const gate = async (commit: () => Promise<unknown>) => {
        aCommitting = true;
        await bDone;
        return commit();
      };
      const fleets: Fleet[] = [];
      for (const [name, view] of [
        ["a", fakeCliStoreView(store, gate)],
        ["b", fakeCliStoreView(store)],
      ] as const) {
        const fleet = new Fleet({ connectionString: url, schema: `${schema}_${name}`, threadStore: view });
        await fleet.start();
        closers.push(() => fleet.close());
        await fleet.worker(({ threadStore }) => new Agent(fakeCodex(`turn ${name}`), { threadStore: threadStore! }), { name });
        fleets.push(fleet);
      }
      const [a, b] = fleets as [Fleet, Fleet];

      const first = await a.submit("first", { threadKey: "shared" });
      await until(() => aCommitting, "fleet A's turn committing");
      const second = await b.submit("second", { threadKey: "shared" });
      const refused = await second.result().then(
        (r) => r,
        (e: unknown) => e,
      );
      bSettled();
      expect(isError(refused, ErrThreadBusy)).toBe(true);
      expect((refused as Error).message).toContain(`held by "adaptor-fleet/${schema}_a/adaptor-fleet-runs"`);
      expect(await first.result()).toMatchObject({ text: "turn a", recovered: false });
      const committed = await store.resolve({ key: "shared" });
      expect(committed?.revision).toBe(1);

      // Submitted again once the key is free, fleet B's turn runs on fleet A's: both are in the thread.
      const again = await b.submit("second again", {
        threadKey: "shared",
        runOptions: fakeRun(fakeCodexSteps("turn b", { resume: true })),
      });
      expect((await again.result()).text).toBe("turn b");
      const after = await store.resolve({ key: "shared" });
      expect({ id: after?.id, revision: after?.revision }).toEqual({ id: committed?.id, revision: 2 });
    });
  });
}
