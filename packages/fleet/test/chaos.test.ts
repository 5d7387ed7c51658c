import type { ChildProcess } from "node:child_process";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Fleet, type StoredVerdict } from "@adaptor/fleet";
import { PG_URL, freshSchema, skipWithoutServer } from "./support/pg.js";
import { processesWith, startFront, startWorker, until } from "./support/processes.js";
import { ownPostgres, type OwnPostgres } from "./support/own-postgres.js";

// Several worker PROCESSES on the fake codex CLI and two front-end PROCESSES (the bridge over the
// fleet), many thread turns over several keys submitted over HTTP, every run followed by an SSE
// subscriber; workers SIGKILLed mid-run and replaced, one front-end SIGKILLed mid-run (its
// subscribers reconnect to the other with Last-Event-ID), one PostgreSQL restart. Everything is
// checked from the recorded history in PostgreSQL and what the subscribers read. Sized for a busy
// 2-core machine (see the package README for the numbers). ADAPTOR_FLEET_CHAOS_KEYS=100 runs the
// full scale (500 turns), outside the default suite's budget.
const WORKERS = 4;
const KEYS = Number(process.env.ADAPTOR_FLEET_CHAOS_KEYS ?? 10);
const TURNS = 5; // per key
const KILLS = 3;
const SLEEP_MS = 400; // per turn, in the fake CLI, so kills land mid-run

/** One SSE message of the raw protocol: its id and JSON data. */
interface WireMessage {
  readonly id: number;
  readonly data: { readonly type: string; readonly [field: string]: unknown };
}

/** Reads an SSE response to its end (or until the connection breaks: then it throws). */
async function* sse(response: Response): AsyncGenerator<WireMessage> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event) });
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (queue.length > 0) {
      const event = queue.shift()!;
      yield { id: Number(event.id), data: JSON.parse(event.data) as WireMessage["data"] };
    }
  }
}

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
  const frontProcesses = new Set<ChildProcess>();
  let checker: Fleet | undefined;
  let store: PostgresThreadStore | undefined;
  afterAll(async () => {
    for (const w of workers) w.kill("SIGKILL");
    for (const f of frontProcesses) f.kill("SIGKILL");
    await checker?.close();
    await store?.close();
    await pool?.end();
    await own?.stop();
  });

  describe("fleet chaos", () => {
    it(
      "worker processes and a front-end process SIGKILLed mid-run and a PostgreSQL restart: every run one verdict, turns per key in order once each, complete event logs, every SSE subscriber's sequence complete after reconnecting, no process left",
      async () => {
        own = await ownPostgres();
        if (own) url = own.url;
        pool = new pg.Pool({ connectionString: url, max: 2 });
        pool.on("error", () => {});
        store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
        await store.migrate();
        checker = new Fleet({ connectionString: url, schema, heartbeatSeconds: 10, monitorIntervalSeconds: 1, maxAttempts: 5 });
        await checker.start();
        const fronts: { url: string; child: ChildProcess; alive: boolean }[] = [];
        for (let i = 0; i < 2; i++) {
          const front = await startFront(url, schema, marker, SLEEP_MS);
          frontProcesses.add(front.child);
          front.child.once("exit", () => frontProcesses.delete(front.child));
          fronts.push({ ...front, alive: true });
        }
        let names = 0;
        let restarted = false;
        let frontKilled = false;
        let orphaned = 0;
        const spawnWorker = async () => {
          const child = await startWorker(url, schema, `w${names++}`);
          workers.add(child);
          child.once("exit", () => workers.delete(child));
        };
        await Promise.all(Array.from({ length: WORKERS }, spawnWorker));

        // Submit over HTTP: turn t of every key, alternating front-ends, one at a time (submission
        // order per key). Each POST's stream is followed by a subscriber to the run's verdict: when
        // its front-end goes away it reconnects to a live one with Last-Event-ID.
        const handles: { key: string; turn: number; id: string; subscriber: Promise<{ seen: WireMessage[]; reconnects: number }> }[] = [];
        /** The front-end each unfinished subscriber reads from now. */
        const reading = new Map<string, number>();
        const follow = async (first: Response, id: string, index: number) => {
          const seen: WireMessage[] = [];
          let response = first;
          let front = index;
          reading.set(id, front);
          let reconnects = 0;
          const deadline = Date.now() + 300_000;
          for (;;) {
            try {
              for await (const message of sse(response)) seen.push(message);
            } catch {
              // The connection broke (its front-end was killed): reconnect below.
            }
            if (seen.at(-1)?.data.type === "run-finished") {
              reading.delete(id);
              return { seen, reconnects };
            }
            for (;;) {
              if (Date.now() > deadline) throw new Error(`subscriber of ${id} could not reconnect`);
              front = (front + 1) % fronts.length;
              if (!fronts[front]!.alive) continue;
              const lastId = seen.at(-1)?.id;
              const next = await fetch(`${fronts[front]!.url}/runs/${id}/events`, {
                headers: lastId !== undefined ? { "last-event-id": String(lastId) } : {},
              }).catch(() => undefined);
              if (next?.ok) {
                response = next;
                reading.set(id, front);
                break;
              }
              await next?.body?.cancel();
              await new Promise((r) => setTimeout(r, 250));
            }
            reconnects++;
          }
        };
        for (let t = 0; t < TURNS; t++) {
          // The keys of one turn at once; turn t + 1 of a key only after its turn t was submitted.
          const round = await Promise.all(
            Array.from({ length: KEYS }, async (_, k) => {
              const index = (t * KEYS + k) % 2;
              const response = await fetch(`${fronts[index]!.url}/runs`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ prompt: `k${k} turn ${t}`, threadKey: `k${k}` }),
              });
              expect(response.status).toBe(200);
              const id = response.headers.get("x-adaptor-run-id")!;
              const subscriber = follow(response, id, index);
              subscriber.catch(() => undefined);
              return { key: `k${k}`, turn: t, id, subscriber };
            }),
          );
          handles.push(...round);
        }

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
          if (kill === 0) {
            // One front-end process dies mid-run too: one that subscribers read from, who move to the other.
            const readers = [...reading.values()];
            const index = readers.length > 0 ? readers[Math.floor(Math.random() * readers.length)]! : 0;
            orphaned = readers.filter((r) => r === index).length;
            fronts[index]!.alive = false;
            fronts[index]!.child.kill("SIGKILL");
            frontKilled = true;
          }
          await spawnWorker();
          if (kill === 0 && own) {
            await own.restart();
            restarted = true;
          }
        }

        const verdicts = await Promise.all(handles.map(({ id }) => checker!.handle(id).verdict()));
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

        // Every subscriber's sequence, across its reconnects, is complete: the ids are the stored
        // sequences (the SDK's run-finished goes out with the verdict, at the verdict's sequence),
        // none missing, none twice, the verdict last; and it equals a full replay from a live front-end.
        let reconnected = 0;
        const live = fronts.find((f) => f.alive)!;
        for (const { id, subscriber } of handles) {
          const { seen, reconnects } = await subscriber;
          reconnected += reconnects > 0 ? 1 : 0;
          const { rows } = await pool.query<{ seq: string; type: string }>(
            `SELECT e.seq::text AS seq, e.event->>'type' AS type FROM "${schema}".adaptor_fleet_events e WHERE e.run_id = $1 ORDER BY e.seq`,
            [id],
          );
          const expected = rows.filter((r) => r.type !== "run-finished").map((r) => Number(r.seq));
          expect(seen.map((m) => m.id)).toEqual(expected);
          expect(seen.at(-1)?.data).toMatchObject({ type: "run-finished", ok: true });
          const replay: WireMessage[] = [];
          for await (const message of sse(await fetch(`${live.url}/runs/${id}/events`))) replay.push(message);
          expect(seen).toEqual(replay);
        }
        // Subscribers read from the front-end when it died: they had to move.
        if (orphaned > 0) expect(reconnected).toBeGreaterThan(0);

        // Stop the workers and front-ends gracefully; nothing of ours is left running.
        const children = [...workers, ...frontProcesses];
        const exits = children.map((c) => new Promise((r) => c.once("exit", r)));
        for (const c of children) c.kill("SIGTERM");
        await Promise.all(exits);
        expect(workers.size + frontProcesses.size).toBe(0);
        await until(() => processesWith(marker).length === 0, "the fake CLIs to exit");
        console.log(
          `fleet chaos: ${handles.length} runs over ${KEYS} keys, ${WORKERS} worker processes, 2 front-end processes, ${KILLS} worker SIGKILLs, ` +
            `${frontKilled ? `1 front-end SIGKILL with ${orphaned} subscribers on it` : "no front-end killed"} (${reconnected} reconnected), ` +
            `PostgreSQL ${restarted ? "restarted once" : "not restarted (no PostgreSQL binaries for a cluster of its own)"}, ${retried} runs retried`,
        );
        expect(retried).toBeGreaterThan(0);
      },
      // A safety net, not an assertion: starting PostgreSQL, two front-ends and four workers and
      // restarting them takes minutes on a busy machine (a subscriber alone may take 300 s to reconnect).
      360_000 + KEYS * 6_000,
    );
  });
}
