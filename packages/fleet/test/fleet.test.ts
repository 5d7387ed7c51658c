import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "adaptor";
import { isError } from "@adaptor/errors";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { ErrFleetQueueFull, Fleet, FleetQueueFullError, type FleetEvent } from "@adaptor/fleet";
import { fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";

if (!PG_URL) {
  skipWithoutServer("fleet");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function host(schema: string, options: { maxQueued?: number } = {}) {
    const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
    await store.migrate();
    // The fake CLI keeps no session files, so the workers' view of the store has no session state.
    const view = new Proxy(store, {
      get: (target, property) => {
        if (property === "sessionState") return undefined;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const fleet = new Fleet({ connectionString: url, schema, threadStore: view, ...options });
    await fleet.start();
    closers.push(async () => {
      await fleet.close();
      await store.close();
    });
    return { fleet, store };
  }

  describe("fleet", () => {
    it("a run submitted on one host is served by a worker on another and both read the same verdict and events", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema);
      const back = await host(schema);
      await back.fleet.worker(({ threadStore }) => new Agent(fakeCodex("hello from the worker"), { threadStore: threadStore! }), { name: "w1" });
      const handle = await front.fleet.submit("say hello");
      const result = await handle.result();
      expect(result.text).toBe("hello from the worker");
      const other = await back.fleet.handle(handle.id).result();
      expect(other.text).toBe("hello from the worker");
      const events: FleetEvent[] = [];
      for await (const e of front.fleet.handle(handle.id).events()) events.push(e);
      expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
      expect(events[0]?.event).toEqual({ type: "attempt-started", attempt: 1, worker: "w1" });
      expect(events.at(-2)?.event.type).toBe("run-finished");
      expect(events.at(-1)?.event.type).toBe("verdict");
      const replayed: FleetEvent[] = [];
      for await (const e of back.fleet.handle(handle.id).events({ after: 2 })) replayed.push(e);
      expect(replayed).toEqual(events.slice(2));
    });

    it("thread turns submitted together run one at a time in submission order and each commits once", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema);
      const back = await host(schema);
      await back.fleet.worker(({ threadStore }) => new Agent(fakeCodex("turn done", 200), { threadStore: threadStore!, spawn: true }), { concurrency: 3 });
      const handles = [];
      for (let i = 0; i < 4; i++) {
        const runOptions = fakeRun(fakeCodexSteps(`turn ${i} done`, { sleepMs: 200, resume: i > 0 }));
        handles.push(await front.fleet.submit(`turn ${i}`, { threadKey: "k1", runOptions }));
      }
      const texts = [];
      for (const h of handles) texts.push((await h.result()).text);
      expect(texts).toEqual(["turn 0 done", "turn 1 done", "turn 2 done", "turn 3 done"]);
      const record = await front.store.resolve({ key: "k1" });
      expect(record?.revision).toBe(4);
    });

    it("submit past maxQueued refuses with FleetQueueFullError and stores nothing", async () => {
      const schema = freshSchema("fleet");
      const front = await host(schema, { maxQueued: 2 });
      await front.fleet.submit("a");
      await front.fleet.submit("b");
      const refused = await front.fleet.submit("c").catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(FleetQueueFullError);
      expect(isError(refused, ErrFleetQueueFull)).toBe(true);
      expect((refused as FleetQueueFullError).queued).toBe(2);
    });
  });
}
