import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet, type FleetEvent, type RunHandle, type StoredVerdict } from "@adaptor/fleet";
import { fakeCodexSteps, fakeRun } from "./support/fake-codex.js";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";
import { processesWith, startWorker, until } from "./support/processes.js";
import { ownPostgres, type OwnPostgres } from "./support/own-postgres.js";

// Several worker PROCESSES on the fake codex CLI, two front-ends in this process, many thread turns
// over several keys, workers SIGKILLed mid-run and replaced. Everything is checked from the recorded
// history in PostgreSQL. Sized for a busy 2-core machine (see the package README for the numbers).
// ADAPTOR_FLEET_CHAOS_KEYS=100 runs the full scale (500 turns), outside the default suite's budget.
const WORKERS = 4;
const KEYS = Number(process.env.ADAPTOR_FLEET_CHAOS_KEYS ?? 10);
const TURNS = 5; // per key
const KILLS = 3;
const SLEEP_MS = 400; // per turn, in the fake CLI, so kills land mid-run

if (!PG_URL) {
  skipWithoutServer("fleet chaos");
} else {
  // The test restarts PostgreSQL, so it runs on a cluster of its own (the shared test server when
  // no PostgreSQL binaries are at hand, then without the restart).
  let own: OwnPostgres | undefined;
  let url = PG_URL;
  const schema = freshSchema("chaos");
  const marker = `FLEET_CHAOS_${schema}`;
  let pool: pg.Pool;
  const workers = new Set<ChildProcess>();
  const fronts: Fleet[] = [];
  let store: PostgresThreadStore | undefined;
  afterAll(async () => {
    for (const w of workers) w.kill("SIGKILL");
    for (const f of fronts) await f.close();
    await store?.close();
    await pool?.end();
    await own?.stop();
  });

  describe("fleet chaos", () => {
    it(
      "worker processes SIGKILLed mid-run and a PostgreSQL restart: every run one verdict, turns per key in order once each, complete event logs, no process left",
      async () => {
        own = await ownPostgres();
        if (own) url = own.url;
        pool = new pg.Pool({ connectionString: url, max: 2 });
        pool.on("error", () => {});
        store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
        await store.migrate();
        for (let i = 0; i < 2; i++) {
          const front = new Fleet({ connectionString: url, schema, heartbeatSeconds: 10, monitorIntervalSeconds: 1, maxAttempts: 5 });
          await front.start();
          fronts.push(front);
        }
        let names = 0;
        let restarted = false;
        const spawnWorker = async () => {
          const child = await startWorker(url, schema, `w${names++}`);
          workers.add(child);
          child.once("exit", () => workers.delete(child));
        };
        await Promise.all(Array.from({ length: WORKERS }, spawnWorker));

        // Submit: turn t of every key, alternating front-ends.
        const handles: { key: string; turn: number; handle: RunHandle }[] = [];
        for (let t = 0; t < TURNS; t++) {
          for (let k = 0; k < KEYS; k++) {
            const steps = fakeCodexSteps(`k${k} turn ${t}`, { sleepMs: SLEEP_MS, resume: t > 0 });
            const runOptions = { env: { ...fakeRun(steps).env, [marker]: "1" } };
            const front = fronts[handles.length % 2]!;
            handles.push({ key: `k${k}`, turn: t, handle: await front.submit(`turn ${t}`, { threadKey: `k${k}`, runOptions }) });
          }
        }
        // Live subscribers on the other front-end for a few runs, from the first event.
        const live = handles.slice(0, KEYS).map(({ handle }) => {
          const seen: FleetEvent[] = [];
          const done = (async () => {
            for await (const e of fronts[1]!.handle(handle.id).events()) seen.push(e);
          })();
          return { id: handle.id, seen, done };
        });

        // Chaos: SIGKILL a worker that is running a turn (a fake CLI of ours is alive), start a new one.
        for (let kill = 0; kill < KILLS; kill++) {
          const running = async () => {
            if (processesWith(marker).length > 0) return true;
            const { rows } = await pool.query<{ n: string }>(
              `SELECT count(*)::text AS n FROM "${schema}".adaptor_fleet_runs WHERE verdict IS NULL`,
            );
            return rows[0]?.n === "0";
          };
          await until(running, `a running turn (kill ${kill})`, 60_000);
          if (processesWith(marker).length === 0) break;
          const victims = [...workers];
          const victim = victims[Math.floor(Math.random() * victims.length)]!;
          victim.kill("SIGKILL");
          await spawnWorker();
          if (kill === 0 && own) {
            await own.restart();
            restarted = true;
          }
        }

        const verdicts = await Promise.all(handles.map(({ handle }) => handle.verdict()));
        expect(verdicts.map((v) => v.kind)).toEqual(handles.map(() => "result"));

        // Every run: exactly one verdict, stored once, the last event of a gapless log.
        const { rows: runs } = await pool.query<{ id: string; attempt: number; n: string; verdicts: string; last: string; max: string }>(
          `SELECT r.id, r.attempt, count(e.*)::text AS n, count(*) FILTER (WHERE e.event->>'type' = 'verdict')::text AS verdicts,
                (SELECT event->>'type' FROM "${schema}".adaptor_fleet_events WHERE run_id = r.id ORDER BY seq DESC LIMIT 1) AS last,
                max(e.seq)::text AS max
         FROM "${schema}".adaptor_fleet_runs r JOIN "${schema}".adaptor_fleet_events e ON e.run_id = r.id GROUP BY r.id`,
        );
        expect(runs).toHaveLength(handles.length);
        for (const run of runs) {
          expect(run.verdicts).toBe("1");
          expect(run.last).toBe("verdict");
          expect(run.max).toBe(run.n);
        }
        const retried = runs.filter((r) => r.attempt > 1).length;

        // Per key: the results in submission order, each turn committed once (the record's revision).
        for (let k = 0; k < KEYS; k++) {
          const mine = handles.map((h, i) => ({ ...h, verdict: verdicts[i]! })).filter((h) => h.key === `k${k}`);
          const texts = mine.map((h) => (h.verdict as Extract<StoredVerdict, { kind: "result" }>).result.text);
          expect(texts).toEqual(mine.map((h) => `k${k} turn ${h.turn}`));
          expect((await store.resolve({ key: `k${k}` }))?.revision).toBe(TURNS);
          // Turn t+1 started (its first attempt) only after turn t's verdict was stored.
          const { rows } = await pool.query<{ ok: boolean }>(
            `SELECT bool_and(next_start > prev_end) AS ok FROM (
             SELECT r.finished_at AS prev_end, lead(r.started_at) OVER (ORDER BY r.submitted_at) AS next_start
             FROM "${schema}".adaptor_fleet_runs r WHERE r.thread_key = $1) s WHERE next_start IS NOT NULL`,
            [`k${k}`],
          );
          expect(rows[0]?.ok).toBe(true);
        }

        // Live subscribers saw exactly what a replay from the start sees.
        for (const sub of live) {
          await sub.done;
          const replay: FleetEvent[] = [];
          for await (const e of fronts[0]!.handle(sub.id).events()) replay.push(e);
          const brief = (list: FleetEvent[]) => list.map((e) => `${e.sequence}/${e.attempt}/${e.event.type}`).join(" ");
          expect(brief(sub.seen)).toBe(brief(replay));
          expect(sub.seen).toEqual(replay);
          expect(sub.seen.map((e) => e.sequence)).toEqual(replay.map((_, i) => i + 1));
        }

        // Stop the workers gracefully; nothing of ours is left running.
        const exits = [...workers].map((w) => new Promise((r) => w.once("exit", r)));
        for (const w of workers) w.kill("SIGTERM");
        await Promise.all(exits);
        await until(() => processesWith(marker).length === 0, "the fake CLIs to exit");
        console.log(
          `fleet chaos: ${handles.length} runs over ${KEYS} keys, ${WORKERS} worker processes, 2 front-ends, ${KILLS} SIGKILLs, ` +
            `PostgreSQL ${restarted ? "restarted once" : "not restarted (no PostgreSQL binaries for a cluster of its own)"}, ${retried} runs retried`,
        );
        expect(retried).toBeGreaterThan(0);
      },
      120_000 + KEYS * 3_000,
    );
  });
}
