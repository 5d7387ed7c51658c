// One measured consumer process of the event-pipeline benchmark: an Agent with the claude or codex
// driver pointed at a fake CLI, `for await` over the stream of one turn. Prints one JSON line:
// events read, text length, this process's own CPU (µs) and peak RSS (KiB) up to the Result, and
// both again after reading the Result's transcript. The fake CLI is a
// separate process, so its CPU is not counted.
import { claude } from "@adaptor/claude";
import { codex } from "@adaptor/codex";
import { Agent } from "adaptor";

const which = process.argv[2];
const command = process.env.FAKE_CLI;
if (!command || (which !== "claude" && which !== "codex" && which !== "codex-exec")) {
  process.stderr.write("usage: FAKE_CLI=<fake> agent-consumer.ts claude|codex|codex-exec\n");
  process.exit(2);
}
// The child environment is an allowlist: hand the fake its delta count (and line order) explicitly.
const env = { FAKE_N: process.env.FAKE_N ?? "200000", FAKE_ORDER: process.env.FAKE_ORDER ?? "" };
const driver =
  which === "claude"
    ? claude({ command, env })
    : codex({ command, env, ...(which === "codex-exec" ? { transport: "exec" as const } : {}) });
const agent = new Agent(driver);
let events = 0;
let text = 0;
let dropped = 0;
let transcript = 0;
const stream = agent.stream("hi");
// The loop runs in a function, as in a host (the bare readers' per-line work runs in a callback
// function too): the same loop at module top level costs V8 far more per resumption, about 150 ms
// per 200,000 events on this machine (a fifth of the profile, all of it in promise-job dispatch).
async function consume(): Promise<void> {
  for await (const event of stream) {
    events++;
    if (event.type === "text-delta") text += event.text.length;
    else if (event.type === "dropped") dropped += event.count;
  }
}
await consume();
const result = await stream.result();
await agent.close();
const u = process.resourceUsage();
// Then the Result's transcript, measured apart: a driver may make a long transcript's items only
// when they are first read (the host that only reads the stream never pays for them).
transcript = result.transcript().length;
const t = process.resourceUsage();
console.log(
  JSON.stringify({
    events,
    text,
    dropped,
    transcript,
    cpuUs: u.userCPUTime + u.systemCPUTime,
    maxRssKb: u.maxRSS,
    withTranscriptCpuUs: t.userCPUTime + t.systemCPUTime,
    withTranscriptMaxRssKb: t.maxRSS,
  }),
);
