// `pnpm bench`: runs every benchmark in order and prints its figures. Each benchmark lives in its
// own file and is listed below; ratios are always against a baseline measured in the same run.
import { fmt, type Benchmark } from "./harness.js";
import { a2aChunks } from "./a2a-chunks.js";
import { claudeThreadTurn } from "./claude-thread-turn.js";
import { codexThreadTurn } from "./codex-thread-turn.js";
import { concurrentRuns } from "./concurrent-runs.js";
import { eventPipeline } from "./event-pipeline.js";
import { fileCheckpoints } from "./file-checkpoints.js";
import { firstTurn } from "./first-turn.js";
import { fleetDispatch } from "./fleet-dispatch.js";
import { portableSessions } from "./portable-sessions.js";
import { rawOutputMemory } from "./raw-output-memory.js";
import { sessionTranscript } from "./session-transcript.js";
import { threadStoreLeases } from "./thread-store-leases.js";

const all: Benchmark[] = [
  eventPipeline,
  concurrentRuns,
  firstTurn,
  threadStoreLeases,
  fleetDispatch,
  claudeThreadTurn,
  codexThreadTurn,
  rawOutputMemory,
  portableSessions,
  sessionTranscript,
  fileCheckpoints,
  a2aChunks,
];
// `pnpm bench <word>...` runs only the benchmarks whose heading contains one of the words.
const filters = process.argv.slice(2).map((word) => word.toLowerCase());
const benchmarks = filters.length ? all.filter((b) => filters.some((word) => b.name.toLowerCase().includes(word))) : all;

const started = performance.now();
for (const benchmark of benchmarks) {
  console.log(`\n## ${benchmark.name}`);
  const begun = performance.now();
  const figures = await benchmark.run();
  const width = Math.max(...figures.map((f) => f.label.length));
  for (const f of figures) {
    console.log(
      `  ${f.label.padEnd(width)}  ${fmt(f.value, Math.abs(f.value) < 10 && !Number.isInteger(f.value) ? 2 : 0).padStart(9)} ${f.unit}${f.note ? `  (${f.note})` : ""}`,
    );
  }
  console.log(`  (${fmt((performance.now() - begun) / 1_000, 1)} s)`);
}
console.log(`\nbench done in ${fmt((performance.now() - started) / 1_000, 1)} s`);
