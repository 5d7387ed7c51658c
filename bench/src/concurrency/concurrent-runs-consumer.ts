// The measured process of the concurrent-runs benchmark (run with --expose-gc): one Agent, RUNS
// concurrent runs against a fake claude CLI that streams deltas and asks one approval per run.
// Every handler waits until all runs asked (so all are in flight at once), then approves even
// runs and denies odd ones. Prints one JSON line and then must exit by itself: a handle left
// open keeps it alive, which the parent reports.
import { claude } from "@adaptor/claude";
import { Agent } from "adaptor";
import { FAKE_N, measureConcurrentRuns } from "./measure.js";

const MAX_SPAWNS = Number(process.env.MAX_SPAWNS ?? 4);
const command = process.env.FAKE_CLI;
if (!command) throw new Error("FAKE_CLI is required");

// The child environment is an allowlist: hand the fake its delta count explicitly.
const agent = new Agent(claude({ command, maxConcurrentSpawns: MAX_SPAWNS, env: { FAKE_N } }));
const policy = { approvals: { timeoutMs: 600_000 } };

await measureConcurrentRuns(
  async (name, decide, expected) => {
    const stream = agent.stream(name, {
      policy,
      onApproval: async (request) => {
        if (await decide(expected.startsWith("allowed"))) request.approve();
        else request.deny("odd run");
      },
    });
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
  },
  () => agent.close(),
);
