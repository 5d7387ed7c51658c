// One worker process of multi-process.test.ts: opens the store, prints "ready", waits for a line on
// stdin (so every worker starts at once), then loops acquire → resolve → finalize(count + 1) →
// release on one key until it has finalized `cycles` times, and prints a JSON report on stdout.
import { performance } from "node:perf_hooks";
import { BusyError, LeaseLostError, type ThreadRecord } from "@adaptor/threadstore";
import { SqliteThreadStore } from "../../src/index.js";

const [path, owner, cyclesText, key] = process.argv.slice(2) as [string, string, string, string];
const cycles = Number(cyclesText);
const store = new SqliteThreadStore({ path, busyTimeoutMs: 10_000 });
const wallNow = () => performance.timeOrigin + performance.now();
process.stdout.write("ready\n");
await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
process.stdin.pause();

const tokens: number[] = [];
const holds: [number, number][] = [];
let busy = 0;
let lost = 0;
let finalized = 0;
while (finalized < cycles) {
  let lease;
  try {
    lease = await store.acquireLease(key, owner, 10_000);
  } catch (err) {
    if (!(err instanceof BusyError)) throw err;
    busy++;
    await new Promise((r) => setTimeout(r, 1 + Math.random() * 4)); // back off a little: spinning starves the holder on 2 cores
    continue;
  }
  const start = wallNow();
  tokens.push(lease.token);
  const current = await store.resolve({ key });
  const data = (current?.checkpoint.data ?? { count: 0, tokens: [] }) as { count: number; tokens: number[] };
  const now = new Date();
  const next: ThreadRecord = {
    id: "hammered-record",
    key,
    status: "active",
    driverType: "test",
    identity: "hammer",
    fingerprint: "fp",
    codec: "json/v1",
    checkpoint: { resumeId: `resume-${lease.token}`, data: { count: data.count + 1, tokens: [...data.tokens, lease.token] } },
    createdAt: current?.createdAt ?? now,
    updatedAt: now,
  };
  try {
    await store.finalize({ leases: [lease], record: next });
    finalized++;
  } catch (err) {
    if (!(err instanceof LeaseLostError)) throw err;
    lost++;
  }
  holds.push([start, wallNow()]);
  await store.releaseLease(lease);
}
await store.close();
process.stdout.write(JSON.stringify({ owner, tokens, holds, busy, lost, finalized }) + "\n");
