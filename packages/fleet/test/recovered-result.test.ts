// A turn whose attempt committed it to the thread store and then lost its worker before writing the
// verdict is settled by the next attempt with what was kept, marked `recovered`: the text, the
// committed thread record's session id and a transcript from the lost attempt's events.
import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "adaptor";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet } from "@adaptor/fleet";
import { fakeCliStoreView, fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";

if (!PG_URL) {
  skipWithoutServer("fleet recovered results");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /**
   * A started host supervising the fleet every second; with `stall`, its thread store's lease
   * release (a turn's last write, after its commit and before its verdict) calls it and never returns.
   */
  async function host(schema: string, stall?: () => void): Promise<{ fleet: Fleet; store: PostgresThreadStore }> {
    const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
    await store.migrate();
    const view = fakeCliStoreView(store);
    const stalled = stall
      ? new Proxy(view, {
          get: (target, property) => {
            if (property === "releaseLease")
              return () => {
                stall();
                return new Promise<never>(() => {});
              };
            const value: unknown = Reflect.get(target, property, target);
            return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        })
      : view;
    const fleet = new Fleet({ connectionString: url, schema, threadStore: stalled, heartbeatSeconds: 10, monitorIntervalSeconds: 1 });
    await fleet.start();
    closers.push(async () => {
      await fleet.close();
      await store.close();
    });
    return { fleet, store };
  }

  describe("fleet recovered results", () => {
    it("a turn committed by an attempt whose worker was then lost resolves as recovered, with its text, the thread's session id and a transcript; a turn settled by its own worker is not recovered", async () => {
      const schema = freshSchema("recovered");
      let stalled!: () => void;
      const committed = new Promise<void>((resolve) => (stalled = resolve));
      const lost = await host(schema, stalled);
      const front = await host(schema);
      await lost.fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const handle = await front.fleet.submit("keep it", { threadKey: "kept", runOptions: fakeRun(fakeCodexSteps("kept after the loss")) });
      await committed;
      // The worker's host goes away after the commit, before the verdict: its job's heartbeat stops.
      await lost.fleet.close();
      await front.fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const result = await handle.result();
      expect(result.recovered).toBe(true);
      expect(result.text).toBe("kept after the loss");
      const record = await front.store.resolve({ key: "kept" });
      expect(record?.revision).toBe(1);
      expect(result.sessionId).toBe(record?.checkpoint.resumeId);
      expect(result.transcript().filter((item) => item.kind === "assistant")).toEqual([{ kind: "assistant", text: "kept after the loss" }]);
      const next = await (
        await front.fleet.submit("again", { threadKey: "kept", runOptions: fakeRun(fakeCodexSteps("second turn", { resume: true })) })
      ).result();
      expect(next.recovered).toBe(false);
      expect(next.text).toBe("second turn");
    }, 90_000);
  });
}
