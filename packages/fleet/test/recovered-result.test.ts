// A turn whose attempt committed it to the thread store and then lost its worker before writing the
// verdict is settled by the next attempt with what was kept, marked `recovered`: the text, the
// committed thread record's session id and a transcript from the lost attempt's events.
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, ErrThreadBusy } from "adaptor";
import { isError } from "@adaptor/errors";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet, type RecordedAgentEvent, type RunHandle } from "@adaptor/fleet";
import { fakeCliStoreView, fakeCodex, fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";
import { processesWith, startWorker, until } from "./support/processes.js";

if (!PG_URL) {
  skipWithoutServer("fleet recovered results");
} else {
  const url = PG_URL;
  /** The folder the worker processes run in (the package's). */
  const workerDir = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A started host supervising the fleet every second (it runs no worker: the tests' workers are processes). */
  async function host(schema: string): Promise<{ fleet: Fleet; store: PostgresThreadStore }> {
    const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
    await store.migrate();
    const fleet = new Fleet({
      connectionString: url,
      schema,
      threadStore: fakeCliStoreView(store),
      heartbeatSeconds: 10,
      monitorIntervalSeconds: 1,
    });
    await fleet.start();
    closers.push(async () => {
      await fleet.close();
      await store.close();
    });
    return { fleet, store };
  }

  /** The id of the first question attempt `attempt` of the run asks (waits for it). */
  async function askedBy(handle: RunHandle, attempt: number): Promise<string> {
    for await (const e of handle.events())
      if (e.event.type === "approval-request" && e.attempt === attempt)
        return ((e.event as RecordedAgentEvent).request as { id: string }).id;
    throw new Error(`attempt ${attempt} asked nothing`);
  }

  describe("fleet recovered results", () => {
    it("a turn committed by an attempt whose worker was then lost resolves as recovered, with its text, the thread's session id and a transcript; a turn settled by its own worker is not recovered", async () => {
      const schema = freshSchema("recovered");
      const marker = `FLEET_RECOVERED_${schema}`;
      const front = await host(schema);
      const children = new Set<ChildProcess>();
      closers.push(async () => {
        for (const child of children) child.kill("SIGKILL");
        await until(() => processesWith(marker).length === 0, "no fake CLI left");
      });
      const env = { ...fakeRun(fakeCodexSteps("kept after the loss")).env, [marker]: "1" };
      const handle = await front.fleet.submit("keep it", { threadKey: "kept", runOptions: { env } });
      // The worker's host goes away after the commit, before the verdict (killed in the turn's lease
      // release, once the turn's text is in the log): its job's heartbeat stops.
      const lost = await startWorker(url, schema, "lost", ["3", `lostAtRelease=${handle.id}`]);
      children.add(lost);
      const exited = new Promise((resolve) => lost.once("exit", (_code, signal) => resolve(signal)));
      expect(await exited).toBe("SIGKILL");
      expect((await front.store.resolve({ key: "kept" }))?.revision).toBe(1);
      children.add(await startWorker(url, schema, "second", ["3"]));
      const result = await handle.result();
      expect(result.recovered).toBe(true);
      expect(result.text).toBe("kept after the loss");
      const record = await front.store.resolve({ key: "kept" });
      expect(record?.revision).toBe(1);
      expect(result.sessionId).toBe(record?.checkpoint.resumeId);
      expect(result.transcript().filter((item) => item.kind === "assistant")).toEqual([{ kind: "assistant", text: "kept after the loss" }]);
      const again = { ...fakeRun(fakeCodexSteps("second turn", { resume: true })).env, [marker]: "1" };
      const next = await (await front.fleet.submit("again", { threadKey: "kept", runOptions: { env: again } })).result();
      expect(next.recovered).toBe(false);
      expect(next.text).toBe("second turn");
    }, 120_000);

    it("a host closed while its thread turn's lease release hangs after the commit settles that turn itself with its result, once: not recovered, not drained, not run again", async () => {
      const schema = freshSchema("recovered_closed");
      const front = await host(schema);
      let released!: () => void;
      const committed = new Promise<void>((resolve) => (released = resolve));
      const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
      const view = fakeCliStoreView(store);
      // The turn's last write (after its commit, before its verdict) never answers.
      const hanging = new Proxy(view, {
        get: (target, property) => {
          if (property === "releaseLease")
            return () => {
              released();
              return new Promise<never>(() => {});
            };
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const closing = new Fleet({ connectionString: url, schema, threadStore: hanging });
      await closing.start();
      closers.push(async () => {
        await closing.close();
        await store.close();
      });
      await closing.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore! }));
      const handle = await front.fleet.submit("keep it", {
        threadKey: "closed",
        runOptions: fakeRun(fakeCodexSteps("settled by its own host")),
      });
      await committed;
      await closing.close();
      // No other worker exists: the closing host wrote the verdict before its connections closed.
      expect((await handle.info()).settled).toBe(true);
      const result = await handle.result();
      expect(result.recovered).toBe(false);
      expect(result.text).toBe("settled by its own host");
      expect((await front.store.resolve({ key: "closed" }))?.revision).toBe(1);
      const started: number[] = [];
      for await (const e of handle.events({ follow: false })) if (e.event.type === "attempt-started") started.push(e.attempt);
      expect(started).toEqual([1]);
    }, 60_000);

    it("a turn committed to the thread store by an attempt whose worker died before the fleet recorded the commit resolves as recovered: the record is the one that attempt wrote", async () => {
      const schema = freshSchema("recovered_window");
      const marker = `FLEET_RECOVERED_${schema}`;
      const front = await host(schema);
      const children = new Set<ChildProcess>();
      closers.push(async () => {
        for (const child of children) child.kill("SIGKILL");
        await until(() => processesWith(marker).length === 0, "no fake CLI left");
      });
      const lost = await startWorker(url, schema, "lost", ["3", "lostAfterCommit"]);
      children.add(lost);
      const committed = new Promise<void>((resolve) =>
        lost.stdout!.on("data", (chunk: Buffer) => {
          if (chunk.toString().includes("committed")) resolve();
        }),
      );
      const env = { ...fakeRun(fakeCodexSteps("committed, then lost")).env, [marker]: "1" };
      const handle = await front.fleet.submit("keep it", { threadKey: "window", runOptions: { env } });
      await committed;
      // The thread store has the turn; the fleet's transaction around the commit never ends.
      const exited = new Promise((resolve) => lost.once("exit", resolve));
      lost.kill("SIGKILL");
      await exited;
      expect((await front.store.resolve({ key: "window" }))?.revision).toBe(1);
      children.add(await startWorker(url, schema, "second", ["3"]));
      const result = await handle.result();
      expect(result.recovered).toBe(true);
      expect(result.text).toBe("committed, then lost");
      expect((await front.store.resolve({ key: "window" }))?.revision).toBe(1);
    }, 120_000);

    it("a retried attempt whose lost attempt never committed runs the turn, though another writer changed the thread record meanwhile (it is not settled recovered)", async () => {
      const schema = freshSchema("recovered_other");
      const marker = `FLEET_RECOVERED_${schema}`;
      const front = await host(schema);
      const children = new Set<ChildProcess>();
      closers.push(async () => {
        for (const child of children) child.kill("SIGKILL");
        await until(() => processesWith(marker).length === 0, "no fake CLI left");
      });
      const worker = async (name: string): Promise<ChildProcess> => {
        const child = await startWorker(url, schema, name, ["3"]);
        children.add(child);
        return child;
      };
      // A writer outside the fleet (its own lease owner) on the same thread store, its CLI run in the
      // workers' folder (the thread's workspace).
      await using outside = new Agent(fakeCodex("unused"), { threadStore: fakeCliStoreView(front.store), cwd: workerDir });
      await outside.thread("shared").run("first", fakeRun(fakeCodexSteps("first turn")));
      const first = await worker("first");
      // The fleet's turn asks a question and waits: its worker dies before it commits anything.
      const env = { ...fakeRun(fakeCodexSteps("the fleet's turn", { ask: "npm test", resume: true })).env, [marker]: "1" };
      const handle = await front.fleet.submit("fleet turn", { threadKey: "shared", runOptions: { env } });
      const lost = await askedBy(handle, 1);
      const exited = new Promise((resolve) => first.once("exit", resolve));
      first.kill("SIGKILL");
      await exited;
      // The lost attempt's lease lapses (its TTL, 30 s by default); the other writer, refused busy
      // until then, commits a turn of the thread meanwhile.
      await until(async () => (await front.fleet.approval(lost))?.status === "closed", "the lost attempt's job failed", 60_000);
      await until(
        () =>
          outside
            .thread("shared")
            .run("other", fakeRun(fakeCodexSteps("another writer's turn", { resume: true })))
            .then(
              () => true,
              (error: unknown) => {
                if (!isError(error, ErrThreadBusy)) throw error;
                return new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1_000));
              },
            ),
        "the other writer's turn",
        60_000,
      );
      expect((await front.store.resolve({ key: "shared" }))?.revision).toBe(2);
      await worker("second");
      await front.fleet.answer(await askedBy(handle, 2), { outcome: "approve" });
      const result = await handle.result();
      expect(result.recovered).toBe(false);
      expect(result.text).toBe("the fleet's turn");
      expect((await front.store.resolve({ key: "shared" }))?.revision).toBe(3);
    }, 120_000);
  });
}
