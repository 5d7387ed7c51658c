// The measured process of the concurrent-runs benchmark (run with --expose-gc): one Agent, RUNS
// concurrent runs against a fake claude CLI that streams deltas and asks one approval per run.
// Every handler waits until all runs asked (so all are in flight at once), then approves even
// runs and denies odd ones. Prints one JSON line and then must exit by itself: a handle left
// open keeps it alive, which the parent reports.
import { getHeapSpaceStatistics } from "node:v8";
import { claude } from "@adaptor/claude";
import { Agent, type ApprovalRequest } from "adaptor";

const RUNS = Number(process.env.RUNS ?? 100);
const MAX_SPAWNS = Number(process.env.MAX_SPAWNS ?? 4);
const command = process.env.FAKE_CLI;
if (!command) throw new Error("FAKE_CLI is required");
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");

const rss = (): number => process.memoryUsage.rss();
async function settledRss(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return rss();
}

/** How long to wait, at most, for V8's idle memory reducer after the runs. */
const IDLE_WAIT_MS = 15_000;
const newSpaceBytes = (): number => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;

/**
 * Under load V8 grows its young generation (up to 2 x 16 MiB of semi-spaces) and keeps that capacity
 * through full GCs until it sees the allocation rate low: then a GC shrinks it. Waits idle, with a
 * GC every 500 ms, until the young generation shrank below `grown` or {@link IDLE_WAIT_MS} passed,
 * then measures again. Resolves the RSS and the wait, ms.
 */
async function idleRss(grown: number): Promise<{ rss: number; waitedMs: number }> {
  const started = performance.now();
  while (newSpaceBytes() >= grown && performance.now() - started < IDLE_WAIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    gc!();
  }
  const waitedMs = performance.now() - started;
  return { rss: await settledRss(), waitedMs };
}

// The child environment is an allowlist: hand the fake its delta count explicitly.
const agent = new Agent(claude({ command, maxConcurrentSpawns: MAX_SPAWNS, env: { FAKE_N: process.env.FAKE_N ?? "1000" } }));
const policy = { approvals: { timeoutMs: 600_000 } };

/** One run: its events counted, its verdict checked against the decision its handler made. */
async function run(
  name: string,
  onApproval: (request: ApprovalRequest) => Promise<void>,
  expected: string,
): Promise<{ ok: boolean; deltas: number; detail: string }> {
  const stream = agent.stream(name, { onApproval, policy });
  let deltas = 0;
  let approvals = 0;
  for await (const event of stream) {
    if (event.type === "text-delta") deltas++;
    else if (event.type === "approval-request") approvals++;
  }
  try {
    const result = await stream.result();
    const ok = result.text === expected && approvals === 1;
    return { ok, deltas, detail: ok ? "" : `${name}: text ${JSON.stringify(result.text)}, ${approvals} approval(s)` };
  } catch (error) {
    return { ok: false, deltas, detail: `${name}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

const decide =
  (i: number) =>
  async (request: ApprovalRequest): Promise<void> => {
    if (i % 2 === 0) request.approve();
    else request.deny("odd run");
  };
const expectation = (i: number, name: string): string => (i % 2 === 0 ? `allowed ${name}` : `denied ${name}`);

// Warm-up: one run, so code compiled on first use is not counted as per-run memory.
const warm = await run("warm-up", decide(0), expectation(0, "warm-up"));
if (!warm.ok) throw new Error(`warm-up run failed: ${warm.detail}`);

const before = await settledRss();
const heapBefore = process.memoryUsage().heapUsed;
let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, rss())), 10);
let asked = 0;
let releaseAll: () => void = () => undefined;
const allAsked = new Promise<void>((resolve) => (releaseAll = resolve));
const started = performance.now();
const outcomes = await Promise.all(
  Array.from({ length: RUNS }, (_, i) => {
    const name = `run-${i}`;
    const answer = decide(i);
    return run(
      name,
      async (request) => {
        if (++asked === RUNS) {
          peak = Math.max(peak, rss());
          releaseAll();
        }
        await allAsked;
        await answer(request);
      },
      expectation(i, name),
    );
  }),
);
const elapsedMs = performance.now() - started;
clearInterval(sampler);
peak = Math.max(peak, rss());
await agent.close();
const after = await settledRss();
const newSpaceAfter = newSpaceBytes();
const idle = await idleRss(newSpaceAfter);
const failures = outcomes.filter((o) => !o.ok).map((o) => o.detail);
console.log(
  JSON.stringify({
    runs: RUNS,
    correct: outcomes.length - failures.length,
    failures: failures.slice(0, 5),
    allInFlight: asked === RUNS,
    deltas: outcomes.reduce((sum, o) => sum + o.deltas, 0),
    beforeRss: before,
    peakRss: peak,
    afterRss: after,
    newSpaceAfter,
    afterIdleRss: idle.rss,
    newSpaceAfterIdle: newSpaceBytes(),
    idleWaitMs: idle.waitedMs,
    elapsedMs,
    heapUsedBefore: heapBefore,
    heapUsedAfter: process.memoryUsage().heapUsed,
  }),
);
