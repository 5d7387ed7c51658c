// One worker process of the thread race (thread-race.test.ts): runs `turns` thread turns on one
// key through a shared durable store with a scripted driver, logging each driver run's interval.
import { appendFileSync } from "node:fs";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import type { ThreadStore } from "@adaptor/threadstore";
import { Agent, ErrThreadBusy, isError } from "adaptor";
import { scriptedDriver } from "../scripted-driver.js";

const [, , kind, target, worker, turnsText, logFile, schema] = process.argv;
const turns = Number(turnsText);

const store: ThreadStore =
  kind === "postgres"
    ? new PostgresThreadStore({ connectionString: target!, ...(schema ? { schema } : {}) })
    : new SqliteThreadStore({ path: target! });

// The checkpoint counts the turns that reached the store: a lost or stale write breaks the count.
const driver = scriptedDriver(async (request) => {
  const start = Date.now();
  const before = request.session ? Number(request.session.resumeId.split(":")[1]) : 0;
  await new Promise((resolve) => setTimeout(resolve, 3));
  appendFileSync(logFile!, JSON.stringify({ worker, start, end: Date.now(), before }) + "\n");
  return { text: "ok", checkpoint: { resumeId: `count:${before + 1}` } };
});

const agent = new Agent(driver, { threadStore: store, owner: `worker-${worker}`, leaseTtlMs: 10_000 });
let ok = 0;
let busy = 0;
const other: string[] = [];
for (let i = 0; i < turns; i++) {
  try {
    await agent.thread("race").run(`turn ${i}`);
    ok++;
  } catch (error) {
    if (isError(error, ErrThreadBusy)) busy++;
    else other.push(String(error));
  }
}
await agent.close();
await store.close();
process.stdout.write(JSON.stringify({ worker, ok, busy, other }) + "\n");
