import { fork, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { claudeTestEnv, codexTestEnv, startAnthropicServer, startOpenAIServer } from "@adaptor/testkit";
import type { TurnOrder, WorkerConfig, WorkerMessage } from "./worker.js";

// Many workers, one PostgreSQL store, on the real claude and codex binaries: three worker
// processes, each with its own CLI home and its own copy of the working directory, serve five
// threads × six turns in random worker order; then one worker is killed (SIGKILL) mid-turn and
// another continues that thread from its last checkpoint once the dead worker's lease lapses.

const PG_URL = process.env.ADAPTOR_TEST_PG_URL;
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WORKER = fileURLToPath(new URL("./worker.ts", import.meta.url));
const KEYS = ["k1", "k2", "k3", "k4", "k5"];
const TURNS = 6;
/**
 * Short, so the takeover after the kill is quick; renewed every third of it. Long enough that a
 * worker whose event loop stalls while several CLIs start at once on a busy machine (seconds, at a
 * load of 25 on 2 cores) still renews in time.
 */
const LEASE_TTL_MS = 10_000;

/** A worker process and its pending turns. */
class Worker {
  readonly child: ChildProcess;
  readonly pids = new Set<number>();
  readonly #pending = new Map<number, (message: WorkerMessage & { type: "done" }) => void>();
  readonly ready: Promise<void>;
  #next = 0;

  constructor(
    readonly name: string,
    config: WorkerConfig,
  ) {
    this.child = fork(WORKER, [], {
      cwd: ROOT,
      execArgv: ["--conditions=source", "--import", "tsx"],
      env: { ...process.env, ADAPTOR_WORKER: JSON.stringify(config) },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.ready = new Promise((resolve, reject) => {
      this.child.once("exit", (code, signal) => reject(new Error(`${name} exited before it was ready (${code ?? signal})`)));
      this.child.on("message", (message: WorkerMessage) => {
        if (message.type === "ready") resolve();
        if (message.type === "spawned") this.pids.add(message.pid);
        if (message.type === "done") this.#pending.get(message.id)?.(message);
      });
    });
  }

  /** Sends one turn; resolves with its outcome. */
  run(key: string, prompt: string): Promise<WorkerMessage & { type: "done" }> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.child.send({ id, key, prompt } satisfies TurnOrder);
    });
  }

  /** Asks the worker to close its agent and exit; SIGKILL when it has not after 20 s. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    if (this.child.connected) this.child.disconnect();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 20_000);
    await exited;
    clearTimeout(timer);
  }
}

/** A small deterministic generator, so a failing order can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const marker = (key: string, turn: number | string): string => `[${key}-t${turn}]`;
const prompt = (key: string, turn: number | string): string => `Thread ${key}, turn ${turn} ${marker(key, turn)}`;

/** The thread markers a model request carries, as `key → turns`. */
function markersOf(body: unknown): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const m of JSON.stringify(body).matchAll(/\[(k\d)-t(\w+)\]/g)) {
    const turns = found.get(m[1]!) ?? new Set<string>();
    turns.add(m[2]!);
    found.set(m[1]!, turns);
  }
  return found;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

if (!PG_URL) {
  console.warn(
    "[many-workers] ADAPTOR_TEST_PG_URL is not set: skipping. Run under scripts/with-postgres.sh to start a throwaway PostgreSQL server.",
  );
}

describe.skipIf(!PG_URL)("many workers, one PostgreSQL store (real binaries)", () => {
  for (const kind of ["claude", "codex"] as const) {
    it(
      `${kind}: 3 workers serve 5 threads × 6 turns in random order with each thread's whole history; a worker killed mid-turn is replaced after the lease lapses`,
      { timeout: 400_000 },
      async () => {
        const anthropic = kind === "claude" ? await startAnthropicServer({ rules: [] }) : undefined;
        const openai = kind === "codex" ? await startOpenAIServer({ rules: [] }) : undefined;
        const server = (anthropic ?? openai)!;
        cleanups.push(() => server.close());
        const schema = `many_${kind}_${Date.now().toString(36)}`;
        const admin = new PostgresThreadStore({ connectionString: PG_URL!, schema });
        await admin.migrate();
        cleanups.push(async () => {
          await admin.close();
          const client = new pg.Client({ connectionString: PG_URL! });
          await client.connect();
          await client.query(`DROP SCHEMA "${schema}" CASCADE`);
          await client.end();
        });
        // The repository every worker has its own checkout of.
        const repo = mkdtempSync(join(tmpdir(), "adaptor-repo-"));
        cleanups.push(() => rmSync(repo, { recursive: true, force: true }));
        mkdirSync(join(repo, "src"));
        writeFileSync(join(repo, "README.md"), "# app\n");
        writeFileSync(join(repo, "src", "app.txt"), "hello\n");

        const workers: Worker[] = [];
        for (let i = 0; i < 3; i++) {
          const env = anthropic ? await claudeTestEnv({ server: anthropic }) : await codexTestEnv({ server: openai! });
          cleanups.push(() => env.cleanup());
          cpSync(repo, env.workDir, { recursive: true });
          const worker = new Worker(`worker-${i}`, {
            driver: kind,
            pgUrl: PG_URL!,
            schema,
            owner: `worker-${i}`,
            cwd: env.workDir,
            env: { ...env.env },
            leaseTtlMs: LEASE_TTL_MS,
          });
          workers.push(worker);
          cleanups.push(async () => {
            await worker.stop();
            for (const pid of worker.pids) {
              try {
                process.kill(pid, "SIGKILL");
              } catch {
                // already gone
              }
            }
          });
        }
        await Promise.all(workers.map((w) => w.ready));

        const seed = Date.now();
        const next = random(seed);
        const label = `seed ${seed}`;
        const served: { key: string; turn: number; worker: string; ok: boolean; restored: boolean; error?: string }[] = [];
        for (let turn = 1; turn <= TURNS; turn++) {
          await Promise.all(
            KEYS.map(async (key) => {
              const worker = workers[Math.floor(next() * workers.length)]!;
              const outcome = await worker.run(key, prompt(key, turn));
              served.push({
                key,
                turn,
                worker: worker.name,
                ok: outcome.ok,
                restored: outcome.ok && outcome.restored,
                ...(outcome.ok ? {} : { error: outcome.error }),
              });
            }),
          );
        }
        expect(
          served.filter((s) => !s.ok),
          label,
        ).toEqual([]);
        expect(served).toHaveLength(KEYS.length * TURNS);
        // A turn on another worker than the thread's previous one restored the session there.
        expect(
          served.some((s) => s.restored),
          label,
        ).toBe(true);

        // The request log: every request belongs to one thread and carries that thread's turns 1..n.
        const requests = server.requests.filter((r) => r.method === "POST");
        const servedTurns = new Set<string>();
        for (const request of requests) {
          const markers = markersOf(request.body);
          if (markers.size === 0) continue; // a helper request of the CLI, not a turn
          expect([...markers.keys()], label).toHaveLength(1);
          const [key, turns] = [...markers.entries()][0]!;
          const numbers = [...turns].map(Number).sort((a, b) => a - b);
          expect(numbers, `${label} ${key}`).toEqual(numbers.map((_, i) => i + 1));
          servedTurns.add(marker(key, numbers.at(-1)!));
        }
        for (const key of KEYS)
          for (let turn = 1; turn <= TURNS; turn++) expect(servedTurns.has(marker(key, turn)), `${label} ${marker(key, turn)}`).toBe(true);

        // SIGKILL a worker while its turn waits on the model; another continues after the lease lapses.
        const victim = workers[Math.floor(next() * workers.length)]!;
        const heir = workers.find((w) => w !== victim)!;
        void victim.run("k1", `${prompt("k1", "lost")} SLOW_MS 60000`);
        await expect
          .poll(() => server.requests.some((r) => JSON.stringify(r.body).includes(marker("k1", "lost"))), {
            timeout: 90_000,
            interval: 100,
          })
          .toBe(true);
        victim.child.kill("SIGKILL");
        await new Promise((resolve) => victim.child.once("exit", resolve));
        for (const pid of victim.pids) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // already gone
          }
        }
        let busy = 0;
        let after: WorkerMessage & { type: "done" };
        for (;;) {
          after = await heir.run("k1", prompt("k1", TURNS + 1));
          if (after.ok || !after.busy) break;
          busy++;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        expect(after.ok, `${label} ${after.ok ? "" : after.error}`).toBe(true);
        const last = requests.length;
        const continued = server.requests.slice(last).filter((r) => JSON.stringify(r.body).includes(marker("k1", TURNS + 1)));
        expect(continued.length).toBeGreaterThan(0);
        const markers = markersOf(continued.at(-1)!.body);
        expect([...markers.keys()]).toEqual(["k1"]);
        expect([...markers.get("k1")!].sort()).toEqual(["1", "2", "3", "4", "5", "6", "7"]);
        console.log(
          `[many-workers ${kind}] ${label}: ${served.filter((s) => s.restored).length} of ${served.length} turns restored a session; ${busy} busy retries after the kill`,
        );
      },
    );
  }
});
