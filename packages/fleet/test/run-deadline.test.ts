import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { Fleet, FleetRunCancelledError, type FleetEvent, type RunHandle } from "@adaptor/fleet";
import { fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";
import { processesWith, startWorker, until } from "./support/processes.js";

// A run's `timeoutMs` is one budget from its first attempt's start, whatever its attempts: a
// retried attempt gets what is left of it, and one that would start past it settles the run
// TIMEOUT without running the CLI. A run cancelled while its worker was lost starts no other
// attempt. Workers are processes (support/chaos-worker.ts, heartbeat 10 s) SIGKILLed mid-run.
if (!PG_URL) {
  skipWithoutServer("fleet run deadline");
} else {
  const url = PG_URL;
  const children = new Set<ChildProcess>();
  const fronts: Fleet[] = [];
  afterAll(async () => {
    for (const c of children) c.kill("SIGKILL");
    for (const f of fronts) await f.close();
  });

  async function started(url: string, schema: string, name: string): Promise<ChildProcess> {
    const child = await startWorker(url, schema, name, ["3", "retryRuns"]);
    children.add(child);
    return child;
  }

  async function kill(child: ChildProcess): Promise<void> {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  }

  /** Submits a run without a thread (retried: `retryRuns`) whose CLI sleeps `sleepMs`, and SIGKILLs its first worker once the CLI runs. */
  async function lostFirstAttempt(
    tag: string,
    runOptions: { timeoutMs?: number },
    sleepMs: number,
  ): Promise<{ front: Fleet; schema: string; handle: RunHandle; marker: string }> {
    const schema = freshSchema(tag);
    const marker = `FLEET_DEADLINE_${schema}`;
    const front = new Fleet({ connectionString: url, schema });
    await front.start();
    fronts.push(front);
    const first = await started(url, schema, "first");
    const env = { ...fakeRun(fakeCodexSteps("second attempt done", { sleepMs })).env, [marker]: "1" };
    const handle = await front.submit("no thread", { runOptions: { ...runOptions, env } });
    await until(() => processesWith(marker).length > 0, "the first attempt's CLI");
    await kill(first);
    return { front, schema, handle, marker };
  }

  async function eventsOf(handle: RunHandle): Promise<FleetEvent[]> {
    const events: FleetEvent[] = [];
    for await (const e of handle.events()) events.push(e);
    return events;
  }

  const kinds = (events: FleetEvent[], attempt: number): string[] => events.filter((e) => e.attempt === attempt).map((e) => e.event.type);

  describe("fleet run timeoutMs across attempts", () => {
    it("an attempt that would start past the run's timeoutMs settles it TIMEOUT without running the CLI", async () => {
      // The worker is found lost at least heartbeatSeconds (10 s) after the kill: past 5 s.
      const { schema, handle, marker } = await lostFirstAttempt("deadline_past", { timeoutMs: 5000 }, 1000);
      const second = await started(url, schema, "second");
      const error = await handle.result().then(
        (r) => r,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ name: "DriverError", code: "TIMEOUT" });
      expect((error as Error).message).toContain("exceeded timeoutMs=5000");
      expect((error as Error).message).toContain("attempt 2 was not started");
      const events = await eventsOf(handle);
      expect(events.filter((e) => e.event.type === "attempt-started").map((e) => e.event)).toEqual([
        { type: "attempt-started", attempt: 1, worker: "first" },
      ]);
      expect(events.some((e) => e.event.type === "run-started" && e.attempt === 2)).toBe(false);
      expect(events.at(-1)?.event.type).toBe("verdict");
      await kill(second);
      await until(() => processesWith(marker).length === 0, "no CLI left");
    });

    it("a retried attempt runs for what is left of the run's timeoutMs, not a fresh one", async () => {
      // timeoutMs 20 s; the second attempt starts at least 10 s in (the heartbeat), so it has at most
      // 10 s left for a CLI that answers after 15 s (a fresh 20 s would let it finish).
      const { schema, handle, marker } = await lostFirstAttempt("deadline_left", { timeoutMs: 20_000 }, 15_000);
      const second = await started(url, schema, "second");
      const error = await handle.result().then(
        (r) => r,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ name: "DriverError", code: "TIMEOUT" });
      expect((error as Error).message).toContain("exceeded timeoutMs=20000");
      expect((error as Error).message).toContain("counted from the run's first attempt");
      const events = await eventsOf(handle);
      expect(kinds(events, 2)).toContain("run-started");
      expect(events.filter((e) => e.event.type === "attempt-started").map((e) => e.event)).toEqual([
        { type: "attempt-started", attempt: 1, worker: "first" },
        { type: "attempt-started", attempt: 2, worker: "second" },
      ]);
      await until(() => processesWith(marker).length === 0, "no CLI left");
      await kill(second);
    });
  });

  describe("fleet cancel of a run whose worker was lost", () => {
    it("the retried attempt writes the cancelled verdict without starting: no attempt-started, no CLI", async () => {
      const { schema, handle, marker } = await lostFirstAttempt("cancel_lost", {}, 20_000);
      // A third host whose cancel waits for the worker longer than the failover takes.
      const canceller = new Fleet({ connectionString: url, schema, heartbeatSeconds: 60 });
      await canceller.start();
      fronts.push(canceller);
      const cancelled = canceller.handle(handle.id).cancel("stop it");
      const second = await started(url, schema, "second");
      expect(await cancelled).toBe(true);
      const error = await handle.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FleetRunCancelledError);
      expect((error as FleetRunCancelledError).message).toContain("stop it");
      const events = await eventsOf(handle);
      expect(events.filter((e) => e.event.type === "attempt-started").map((e) => e.event)).toEqual([
        { type: "attempt-started", attempt: 1, worker: "first" },
      ]);
      expect(events.some((e) => e.attempt === 2 && e.event.type !== "verdict")).toBe(false);
      expect(events.at(-1)?.event.type).toBe("verdict");
      await until(() => processesWith(marker).length === 0, "no CLI left");
      await kill(second);
    });
  });
}
