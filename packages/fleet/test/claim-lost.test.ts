import type { ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet, FleetAttemptsExhaustedError, type FleetEvent, type RecordedAgentEvent, type RunHandle } from "@adaptor/fleet";
import { fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";
import { processesWith, startWorker, until } from "./support/processes.js";

// A worker process paused (SIGSTOP) longer than its heartbeat, then resumed (SIGCONT): a GC pause,
// a VM stall, an event loop starved on a loaded host. pg-boss fails its job meanwhile and retries
// it; the woken worker has lost its claim and writes nothing, applies no answer: the retried
// attempt settles the run.
if (!PG_URL) {
  skipWithoutServer("fleet worker paused past its heartbeat");
} else {
  const url = PG_URL;
  const children = new Set<ChildProcess>();
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of children) {
      c.kill("SIGCONT");
      c.kill("SIGKILL");
    }
    for (const close of closers.reverse()) await close();
  });

  async function setup(prefix: string, flags: string[] = []) {
    const schema = freshSchema(prefix);
    const marker = `FLEET_CLAIM_${schema}`;
    const dir = await mkdtemp(join(tmpdir(), "fleet-claim-"));
    const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
    await store.migrate();
    const front = new Fleet({ connectionString: url, schema });
    await front.start();
    const db = new pg.Pool({ connectionString: url, max: 2 });
    closers.push(async () => {
      await front.close();
      await store.close();
      await db.end();
      await rm(dir, { recursive: true, force: true });
    });
    // One worker host (two slots, heartbeat 10 s, 3 attempts): the retry runs on it once it wakes.
    const worker = await startWorker(url, schema, "paused", ["3", ...flags]);
    children.add(worker);
    /** The pg-boss job of run `id` is no longer active on its first attempt (pg-boss failed it). */
    const failedOnce = async (id: string): Promise<boolean> => {
      const { rows } = await db.query<{ state: string; retry_count: number }>(
        `SELECT state, retry_count FROM "${schema}_boss".job WHERE id = $1`,
        [id],
      );
      return rows.length > 0 && !rows.every((r) => r.state === "active" && r.retry_count === 0);
    };
    /** Pauses the worker until pg-boss failed the jobs of `runs` (several heartbeats), then resumes it. */
    const pauseUntilFailed = async (runs: readonly RunHandle[], whilePaused: () => Promise<void> = async () => {}) => {
      worker.kill("SIGSTOP");
      await whilePaused();
      for (const run of runs) await until(() => failedOnce(run.id), "pg-boss failing the paused worker's job", 90_000);
      worker.kill("SIGCONT");
    };
    return { schema, marker, dir, front, db, pauseUntilFailed };
  }

  async function allEvents(handle: RunHandle): Promise<FleetEvent[]> {
    const events: FleetEvent[] = [];
    for await (const e of handle.events()) events.push(e);
    return events;
  }

  describe("fleet worker paused past its heartbeat", () => {
    it("a thread run whose worker was paused mid-turn is retried and resolves its Result; the paused attempt stores no verdict and no event after it lost its claim, and a run without a thread gets FleetAttemptsExhaustedError", async () => {
      const t = await setup("claim_stall");
      // Attempt 1's CLI is still in its turn when the worker wakes; the scenario is rewritten while
      // the worker is paused, so attempt 2's CLI answers at once.
      const scenario = join(t.dir, "scenario.json");
      await writeFile(scenario, JSON.stringify(fakeCodexSteps("answered by the retried attempt", { sleepMs: 120_000 })));
      const env = { ADAPTOR_FAKE_CLI_SCENARIO: "", ADAPTOR_FAKE_CLI_SCENARIO_FILE: scenario, [t.marker]: "1" };
      const thread = await t.front.submit("go on", { threadKey: "stalled", runOptions: { env } });
      const free = await t.front.submit("no thread", { runOptions: { env } });
      await until(() => processesWith(t.marker).length === 2, "both runs' CLIs");
      await t.pauseUntilFailed([thread, free], () =>
        writeFile(scenario, JSON.stringify(fakeCodexSteps("answered by the retried attempt"))),
      );

      expect((await thread.result()).text).toBe("answered by the retried attempt");
      const events = await allEvents(thread);
      expect(events.filter((e) => e.event.type === "attempt-started").map((e) => e.attempt)).toEqual([1, 2]);
      expect(events.filter((e) => e.event.type === "run-finished").map((e) => e.attempt)).toEqual([2]);
      expect(events.at(-1)).toMatchObject({ attempt: 2, event: { type: "verdict" } });
      const { rows } = await t.db.query<{ verdict_attempt: number }>(
        `SELECT verdict_attempt FROM "${t.schema}".adaptor_fleet_runs WHERE id = $1`,
        [thread.id],
      );
      expect(rows).toEqual([{ verdict_attempt: 2 }]);

      const err = await free.result().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FleetAttemptsExhaustedError);
      expect((err as FleetAttemptsExhaustedError).attempts).toBe(1);
      const freeEvents = await allEvents(free);
      expect(freeEvents.filter((e) => e.event.type === "attempt-started").map((e) => e.attempt)).toEqual([1]);
      expect(freeEvents.filter((e) => e.event.type === "verdict")).toHaveLength(1);
      await until(() => processesWith(t.marker).length === 0, "no CLI left");
    });

    it("an approval answered from another host while its worker is paused: the paused attempt, woken after pg-boss failed its job, does not apply it; the retried attempt does, so the approved call runs once", async () => {
      const t = await setup("claim_approval", ["counted"]);
      const counter = join(t.dir, "answers.log");
      const runOptions = {
        env: {
          ...fakeRun(fakeCodexSteps("ran the approved call", { ask: "npm publish" })).env,
          FLEET_ANSWER_COUNTER: counter,
          [t.marker]: "1",
        },
      };
      const handle = await t.front.submit("publish", { threadKey: "publish", runOptions });
      let asked: FleetEvent | undefined;
      for await (const e of handle.events()) {
        if (e.event.type === "approval-request" && e.attempt === 1) {
          asked = e;
          break;
        }
      }
      const id = ((asked!.event as RecordedAgentEvent).request as { id: string }).id;
      await t.pauseUntilFailed([handle], async () => {
        await t.front.answer(id, { outcome: "approve" });
      });

      await handle.verdict();
      await until(() => processesWith(t.marker).length === 0, "no CLI left");
      // A CLI got the approved answer once: from attempt 2, which replayed the recorded answer.
      const delivered = (await readFile(counter, "utf8")).split("\n").filter(Boolean);
      expect(delivered).toHaveLength(1);
      expect(delivered[0]).toContain("accept");
      expect((await handle.result()).text).toBe("ran the approved call");
      const events = await allEvents(handle);
      // Attempt 2's repeat of the question reached the stream as the recorded answer applied.
      expect(events.filter((e) => e.event.type === "approval-request").map((e) => e.attempt)).toEqual([1]);
      expect(
        events
          .filter((e) => e.event.type === "notice" && (e.event as RecordedAgentEvent).kind === "approval.replayed")
          .map((e) => [e.attempt, ((e.event as RecordedAgentEvent).data as { replayedFrom: string }).replayedFrom]),
      ).toEqual([[2, id]]);
      expect(events.filter((e) => e.event.type === "run-finished").map((e) => e.attempt)).toEqual([2]);
    });
  });
}
