// The per-turn cost of file checkpoints (`checkpointFiles`) on a small repository: warm codex thread
// turns (reused app-server process, scripted model) with and without a snapshot before each turn,
// alternating so load swings hit both alike, plus the time of one rewind.
import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { codex } from "@adaptor/codex";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { codexTestEnv, startOpenAIServer } from "@adaptor/testkit";
import { Agent, type AgentEvent } from "adaptor";
import type { Benchmark, Figure } from "./harness.js";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function measure(turns: number): Promise<Figure[]> {
  const server = await startOpenAIServer({ rules: [] });
  const env = await codexTestEnv({ server });
  // The small repository: this SDK's own `adaptor` package sources (about 60 files, 0.5 MB), and an ignored
  // dependency folder a snapshot must not read.
  const src = fileURLToPath(new URL("../../packages/adaptor/src", import.meta.url));
  await cp(src, join(env.workDir, "src"), { recursive: true });
  await writeFile(join(env.workDir, ".gitignore"), "node_modules/\n");
  await mkdir(join(env.workDir, "node_modules", "dep"), { recursive: true });
  await writeFile(join(env.workDir, "node_modules", "dep", "index.js"), "x".repeat(1 << 20));
  const driver = codex({ cwd: env.workDir, env: env.env, inheritEnv: false });
  const options = { threadStore: new MemoryThreadStore(), cwd: env.workDir };
  const plain = new Agent(driver, options);
  const checked = new Agent(driver, { ...options, checkpointFiles: { dir: join(env.root, "checkpoints") } });
  try {
    const a = plain.thread("plain");
    const b = checked.thread("checked");
    await a.run("warm-up");
    await b.run("warm-up");
    const without: number[] = [];
    const withFiles: number[] = [];
    const snapshotMs: number[] = [];
    let last = "";
    for (let i = 0; i < turns; i++) {
      let started = performance.now();
      await a.run(`turn ${i}`);
      without.push(performance.now() - started);
      started = performance.now();
      const stream = b.stream(`turn ${i}`);
      for await (const event of stream as AsyncIterable<AgentEvent>) {
        if (event.type === "notice" && event.message === "files checkpointed") snapshotMs.push(event.data?.ms as number);
      }
      last = (await stream.result()).runId;
      withFiles.push(performance.now() - started);
    }
    const started = performance.now();
    await b.rewind(last);
    const rewindMs = performance.now() - started;
    const w = median(without);
    const c = median(withFiles);
    return [
      { label: "warm turn, no checkpoint", value: w, unit: "ms", note: `median of ${turns}` },
      { label: "warm turn, checkpointFiles", value: c, unit: "ms", note: `median of ${turns}` },
      { label: "overhead per turn", value: c - w, unit: "ms", note: `snapshot alone: median ${median(snapshotMs).toFixed(0)} ms` },
      { label: "checkpointFiles / none", value: c / w, unit: "x", note: "baseline: the turn without checkpoint, same run" },
      { label: "one rewind (files + checkpoint)", value: rewindMs, unit: "ms" },
    ];
  } finally {
    await checked.close();
    await plain.close();
    await driver.close();
    await server.close();
    await env.cleanup();
  }
}

/** `pnpm bench files`: the cost of a per-turn file snapshot on a small repository. */
export const fileCheckpoints: Benchmark = {
  name: "file checkpoints: warm codex turn with and without checkpointFiles, small repository",
  run: () => measure(9),
};
