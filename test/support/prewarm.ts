import { readFileSync, readdirSync } from "node:fs";
import type { AgentEvent, Stream } from "adaptor";

/** Pids of this process's live children whose command line contains `word` (Linux `/proc`). */
export function childrenMentioning(word: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(word)) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/** Pids of the children (see {@link childrenMentioning}) that appeared while `action` ran, such as a pre-warm. */
export async function childrenStartedBy(word: string, action: () => Promise<unknown>): Promise<number[]> {
  const before = new Set(childrenMentioning(word));
  await action();
  return childrenMentioning(word).filter((pid) => !before.has(pid));
}

/** Live (non-zombie) processes with `text` as one whole argument (Linux `/proc`). */
export function processesWithArgument(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes(text)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (!stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/** Drains a turn: its text, whether it spawned a process, and the pre-warmed process it took, if any. */
export async function prewarmTurn(stream: Stream): Promise<{ text: string; spawned: boolean; prewarmedPid: number | undefined }> {
  let spawned = false;
  let prewarmedPid: number | undefined;
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    if (event.type === "process" && event.kind === "spawn") spawned = true;
    if (event.type === "notice" && event.message === "process reused" && event.data?.prewarmed === true)
      prewarmedPid = event.data.pid as number;
  }
  return { text: (await stream.result()).text, spawned, prewarmedPid };
}
