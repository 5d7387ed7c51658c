// One worker process of multi-process.test.ts: opens the store, prints "ready", waits for a line on
// stdin (so every worker starts at once), then loops acquire → resolve → finalize(count + 1) →
// release on one key until it has finalized `cycles` times, and prints a JSON report on stdout.
import { leaseHammer } from "@adaptor/threadstore/testing";
import { SqliteThreadStore } from "../../src/index.js";

const [path, owner, cyclesText, key] = process.argv.slice(2) as [string, string, string, string];
const cycles = Number(cyclesText);
const store = new SqliteThreadStore({ path, busyTimeoutMs: 10_000 });
process.stdout.write("ready\n");
await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
process.stdin.pause();
const report = await leaseHammer(store, { owner, cycles, key });
await store.close();
process.stdout.write(JSON.stringify(report) + "\n");
