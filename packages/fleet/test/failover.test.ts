import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { isError } from "@adaptor/errors";
import { ErrFleetAttemptsExhausted, Fleet, FleetAttemptsExhaustedError, type FleetEvent, type RunHandle } from "@adaptor/fleet";
import { fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";
import { processesWith, startWorker, until } from "./support/processes.js";

// Runs without a thread key whose worker process is SIGKILLed mid-run: settled with the typed
// failure by default; attempted again on another worker with `retryRuns`.
if (!PG_URL) {
  skipWithoutServer("fleet failover");
} else {
  const url = PG_URL;
  const children = new Set<ChildProcess>();
  const fronts: Fleet[] = [];
  afterAll(async () => {
    for (const c of children) c.kill("SIGKILL");
    for (const f of fronts) await f.close();
  });

  async function killMidRun(retryRuns: boolean): Promise<{ handle: RunHandle; events: FleetEvent[] }> {
    const schema = freshSchema("failover");
    const marker = `FLEET_FAILOVER_${schema}`;
    const front = new Fleet({ connectionString: url, schema });
    await front.start();
    fronts.push(front);
    const extra = ["3", ...(retryRuns ? ["retryRuns"] : [])];
    const first = await startWorker(url, schema, "first", extra);
    children.add(first);
    const runOptions = { env: { ...fakeRun(fakeCodexSteps("second attempt done", { sleepMs: 3000 })).env, [marker]: "1" } };
    const handle = await front.submit("no thread", { runOptions });
    await until(() => processesWith(marker).length > 0, "the first attempt's CLI");
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    const second = await startWorker(url, schema, "second", extra);
    children.add(second);
    await handle.verdict();
    const events: FleetEvent[] = [];
    for await (const e of handle.events()) events.push(e);
    const exited = new Promise((r) => second.once("exit", r));
    second.kill("SIGTERM");
    await exited;
    await until(() => processesWith(marker).length === 0, "no CLI left");
    return { handle, events };
  }

  describe("fleet worker drain", () => {
    it("SIGTERM drains a worker process: the run in flight finishes there with its Result, then the process exits 0", async () => {
      const schema = freshSchema("drain");
      const marker = `FLEET_DRAIN_${schema}`;
      const front = new Fleet({ connectionString: url, schema });
      await front.start();
      fronts.push(front);
      const worker = await startWorker(url, schema, "draining");
      children.add(worker);
      const runOptions = { env: { ...fakeRun(fakeCodexSteps("finished while draining", { sleepMs: 2000 })).env, [marker]: "1" } };
      const handle = await front.submit("finish me", { runOptions });
      await until(() => processesWith(marker).length > 0, "the run's CLI");
      const exited = new Promise<number | null>((r) => worker.once("exit", r));
      worker.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect((await handle.result()).text).toBe("finished while draining");
      const started: FleetEvent[] = [];
      for await (const e of handle.events()) if (e.event.type === "attempt-started") started.push(e);
      expect(started.map((e) => e.event)).toEqual([{ type: "attempt-started", attempt: 1, worker: "draining" }]);
      expect(processesWith(marker)).toEqual([]);
    });
  });

  describe("fleet failover of runs without a thread", () => {
    it("by default a run whose worker was SIGKILLed is settled with FleetAttemptsExhaustedError, not run again", async () => {
      const { handle, events } = await killMidRun(false);
      const err = await handle.result().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FleetAttemptsExhaustedError);
      expect(isError(err, ErrFleetAttemptsExhausted)).toBe(true);
      expect((err as FleetAttemptsExhaustedError).attempts).toBe(1);
      expect(events.filter((e) => e.event.type === "attempt-started").map((e) => e.event)).toEqual([
        { type: "attempt-started", attempt: 1, worker: "first" },
      ]);
      expect(events.at(-1)?.event.type).toBe("verdict");
    });

    it("with retryRuns the run is attempted again on another worker; the attempts are numbered in its events", async () => {
      const { handle, events } = await killMidRun(true);
      expect((await handle.result()).text).toBe("second attempt done");
      expect(events.filter((e) => e.event.type === "attempt-started").map((e) => e.event)).toEqual([
        { type: "attempt-started", attempt: 1, worker: "first" },
        { type: "attempt-started", attempt: 2, worker: "second" },
      ]);
      const finished = events.filter((e) => e.event.type === "run-finished");
      expect(finished.map((e) => e.attempt)).toEqual([2]);
      expect(events.at(-1)).toMatchObject({ attempt: 2, event: { type: "verdict" } });
    });
  });
}
