import { readdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join, relative, sep } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { SessionFile, SessionFileSlice, SessionLocation, SessionTransfer } from "@adaptor/driver";
import { appendSessionFile, partFrom, readSessionFileFrom, writeSessionFile } from "@adaptor/driver/process";
import type { CodexConfig } from "../config.js";
import { codexEnv } from "../process-helpers.js";
import { readCheckpointData } from "../session/checkpoint-data.js";

/**
 * The export layout: the thread's rollout files, each named by its path below `CODEX_HOME` (codex
 * continues a thread in a new `…-<thread id>_<id>.jsonl` file after a revert, so there may be several).
 */
export const CODEX_SESSION_FORMAT = "codex-session/v1";
/** Thread ids are UUIDs; anything else never becomes part of a path. */
const THREAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The only names an import places: `sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`. */
const ROLLOUT_NAME = /^sessions\/\d{4}\/\d{2}\/\d{2}\/rollout-[0-9A-Za-z:T._-]+\.jsonl$/;
/** A rollout file name of `threadId`: `rollout-<time>-<thread id>.jsonl` or `…-<thread id>_<id>.jsonl`. */
function isRolloutOf(name: string, threadId: string): boolean {
  if (!name.startsWith("rollout-") || !name.endsWith(".jsonl")) return false;
  const stem = name.slice(0, -".jsonl".length);
  const at = stem.indexOf(`-${threadId}`);
  if (at === -1) return false;
  const rest = stem.slice(at + threadId.length + 1);
  return rest === "" || /^_[0-9a-f-]{36}$/i.test(rest);
}

/** Every rollout file of thread `threadId` below `<home>/sessions` (date folders, three deep). */
export async function rollouts(home: string, threadId: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && depth < 3) await walk(path, depth + 1);
      else if (entry.isFile() && depth === 3 && isRolloutOf(entry.name, threadId)) found.push(path);
    }
  };
  await walk(join(home, "sessions"), 0);
  return found.sort();
}

/** @throws TypeError unless `files` are one or more rollouts of the session's thread. */
function checkNames(location: SessionLocation, files: readonly { readonly name: string }[]): void {
  const bad = files.find(
    (file) => !ROLLOUT_NAME.test(file.name) || !isRolloutOf(file.name.slice(file.name.lastIndexOf("/") + 1), location.resumeId),
  );
  if (files.length === 0 || bad) {
    throw new TypeError(
      `codex session import: expected rollouts of thread ${location.resumeId}, got ${files.map((f) => f.name).join(", ")}`,
    );
  }
}

/**
 * Moves a Codex thread between hosts: its rollout `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<thread
 * id>.jsonl` (`CODEX_HOME`: `codexHome`, else the run's env, else `~/.codex`). An import writes it
 * at the same path below this host's `CODEX_HOME`, replacing other copies; `thread/resume` then
 * finds it by id, whatever this host's cwd. Codex's own SQLite state (thread index, goals, memories)
 * is not carried: resume reads the rollout.
 */
export function codexSessionTransfer(config: CodexConfig, evict: (threadId: string) => Promise<void>): SessionTransfer {
  const homeOf = (location: SessionLocation): string => {
    if (!THREAD_ID.test(location.resumeId)) throw new TypeError(`codex thread id must be a UUID, got ${JSON.stringify(location.resumeId)}`);
    const env = codexEnv(config, location.env);
    return env.CODEX_HOME ?? join(env.HOME ?? homedir(), ".codex");
  };
  /** The rollouts, each from `from(name)` on, once one of them holds the checkpoint's turn (codex may still be flushing it). */
  const exportFrom = async (
    location: SessionLocation,
    from: (name: string) => number,
    signal?: AbortSignal,
  ): Promise<readonly SessionFileSlice[] | undefined> => {
    const home = homeOf(location);
    const lastTurnId = readCheckpointData(location.data).lastTurnId;
    // The turn is in the rollout once its completion line is (`turn_aborted` for an interrupted turn).
    const holds = (content: Buffer): boolean => {
      if (!lastTurnId) return true;
      for (const marker of ["task_complete", "turn_aborted"]) {
        for (let at = content.indexOf(marker); at !== -1; at = content.indexOf(marker, at + 1)) {
          const end = content.indexOf("\n", at);
          const start = content.lastIndexOf("\n", at) + 1;
          if (content.subarray(start, end === -1 ? content.length : end).includes(lastTurnId)) return true;
        }
      }
      return false;
    };
    const read = async (start: (name: string) => number): Promise<(SessionFileSlice & { readonly content: Buffer })[]> => {
      const slices: (SessionFileSlice & { readonly content: Buffer })[] = [];
      for (const path of await rollouts(home, location.resumeId)) {
        const name = relative(home, path).split(sep).join("/");
        const part = await readSessionFileFrom(path, start(name), () => true, signal);
        if (part) slices.push({ name, ...part });
      }
      return slices;
    };
    const deadline = Date.now() + 5_000;
    for (;;) {
      const slices = await read(from);
      if (slices.length === 0) return undefined;
      // A rollout shorter than asked for was not appended to: the caller sees it as rewritten, whatever it holds.
      if (slices.some((slice) => slice.bytes < from(slice.name) || holds(slice.content))) return slices;
      if (Date.now() >= deadline) {
        // The turn may lie before the offsets (a rollout written anew): the whole files decide, as a whole export would.
        const whole = slices.some((slice) => slice.offset > 0) ? await read(() => 0) : [];
        if (whole.some((slice) => holds(slice.content)))
          return whole.map((slice) => ({ name: slice.name, ...partFrom(slice, from(slice.name)) }));
        throw new Error(`the rollout of ${location.resumeId} does not hold the checkpoint's turn ${lastTurnId ?? ""}`);
      }
      await sleep(50, undefined, signal ? { signal } : undefined);
    }
  };
  return {
    format: CODEX_SESSION_FORMAT,
    async exportSession(location, signal): Promise<readonly SessionFile[] | undefined> {
      const slices = await exportFrom(location, () => 0, signal);
      return slices?.map(({ name, content }) => ({ name, content }));
    },
    exportSessionFrom: exportFrom,
    async appendSession(location, slices, signal): Promise<void> {
      signal?.throwIfAborted();
      checkNames(location, slices);
      const home = homeOf(location);
      await evict(location.resumeId);
      for (const slice of slices) await appendSessionFile(join(home, ...slice.name.split("/")), slice.offset, slice.content);
    },
    async importSession(location, files, signal): Promise<void> {
      signal?.throwIfAborted();
      checkNames(location, files);
      const home = homeOf(location);
      await evict(location.resumeId);
      const targets = files.map((file) => join(home, ...file.name.split("/")));
      const stale = (await rollouts(home, location.resumeId)).filter((path) => !targets.includes(path));
      for (const [i, file] of files.entries()) await writeSessionFile(targets[i]!, file.content, i === 0 ? stale : []);
    },
  };
}
