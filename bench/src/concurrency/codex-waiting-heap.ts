// Probe (not part of `pnpm bench`): what codex app-server runs waiting on an approval hold. One
// Agent, RUNS (default 100) concurrent runs against the fake app-server (FAKE_N deltas, default
// 1,000, then one command approval written with the last of them); every handler waits until all
// runs asked, then approves. Prints one JSON line: the JS heap in use after GCs before the runs and
// at the moment every run asked, per run, and, with SNAPSHOT=<file>, the count and bytes of the
// strings holding delta lines in a heap snapshot written at that moment (the decoded stdout chunks
// a waiting run keeps alive).
// Run: cd bench && node --expose-gc --conditions=source --import tsx src/concurrency/codex-waiting-heap.ts
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeHeapSnapshot } from "node:v8";
import { codex } from "@adaptor/codex";
import { Agent } from "adaptor";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
const collect: () => void = gc;
const RUNS = Number(process.env.RUNS ?? 100);
const command = join(import.meta.dirname, "../../fixtures/fake-codex-app-server.mjs");
const env = { FAKE_N: process.env.FAKE_N ?? "1000", FAKE_APPROVAL: "1" };
const agent = new Agent(codex({ command, maxConcurrentSpawns: 4, env }));

/** The JS heap in use after three GCs, each followed by a turn of the event loop. */
async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    collect();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

/** One run whose approval handler awaits `decide`, then approves; resolves its text. */
async function run(name: string, decide: () => Promise<void>): Promise<string> {
  const result = await agent.run(name, {
    policy: { approvals: { permission: "ask", timeoutMs: 600_000 } },
    onApproval: async (request) => {
      await decide();
      request.approve();
    },
  });
  return result.text;
}

/** Strings of the snapshot at `path` that hold a delta line: how many, and their bytes. */
function deltaStrings(path: string): { count: number; bytes: number } {
  const snap = JSON.parse(readFileSync(path, "utf8")) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [type, name, size] = ["type", "name", "self_size"].map((field) => fields.indexOf(field)) as [number, number, number];
  const found = { count: 0, bytes: 0 };
  for (let n = 0; n < snap.nodes.length; n += fields.length) {
    if (!types[snap.nodes[n + type]!]!.endsWith("string")) continue;
    if (!snap.strings[snap.nodes[n + name]!]!.includes('"item/agentMessage/delta"')) continue;
    found.count++;
    found.bytes += snap.nodes[n + size]!;
  }
  return found;
}

if ((await run("warm-up", async () => undefined)) !== "allowed") throw new Error("the warm-up run was not allowed");
const before = await settledHeap();
let asked = 0;
let releaseAll: () => void = () => undefined;
const allAsked = new Promise<void>((resolve) => (releaseAll = resolve));
let waiting = 0;
let snapshot: string | undefined;
const texts = await Promise.all(
  Array.from({ length: RUNS }, (_, i) =>
    run(`run-${i}`, async () => {
      if (++asked === RUNS) {
        waiting = await settledHeap();
        if (process.env.SNAPSHOT) snapshot = writeHeapSnapshot(process.env.SNAPSHOT);
        releaseAll();
      }
      await allAsked;
    }),
  ),
);
await agent.close();
console.log(
  JSON.stringify({
    runs: RUNS,
    allowed: texts.filter((text) => text === "allowed").length,
    heapBeforeKiB: Math.round(before / 1024),
    heapWaitingKiB: Math.round(waiting / 1024),
    perRunKiB: Number(((waiting - before) / 1024 / RUNS).toFixed(1)),
    ...(snapshot ? { deltaStrings: deltaStrings(snapshot) } : {}),
  }),
);
