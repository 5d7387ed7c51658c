import { readdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join, relative, sep } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { SessionFile, SessionFileSlice, SessionLocation, SessionTransfer } from "@adaptor/driver";
import {
  appendSessionFile,
  checkSessionFolders,
  openRegularFile,
  partFrom,
  readSessionFileFrom,
  unlinkPlantedLinks,
  writeSessionFile,
} from "@adaptor/driver/process";
import type { CodexConfig } from "../config.js";
import { codexEnv } from "../process-helpers.js";
import { readCheckpointData, type CodexCheckpointData, type LineageFile } from "../session/checkpoint-data.js";
import { dropHistoryProjection } from "./history-projection.js";

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

/** The thread id a rollout path or name ends with (`…-<thread id>.jsonl` or `…-<thread id>_<id>.jsonl`), if any. */
function threadOf(name: string): string | undefined {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const match = /-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:_[0-9a-f-]{36})?\.jsonl$/i.exec(base);
  return match?.[1];
}

/** Whether `name` is one of the session thread's own rollouts (the others an import takes are its fork lineage's). */
function isOwn(location: SessionLocation, name: string): boolean {
  return isRolloutOf(name.slice(name.lastIndexOf("/") + 1), location.resumeId);
}

/**
 * @throws TypeError unless `files` are rollouts (by name), at least one of them the session
 * thread's own; the others are rollouts of the threads it was forked from.
 */
function checkNames(location: SessionLocation, files: readonly { readonly name: string }[]): void {
  const bad = files.find((file) => !ROLLOUT_NAME.test(file.name) || threadOf(file.name) === undefined);
  if (!files.some((file) => isOwn(location, file.name)) || bad) {
    throw new TypeError(
      `codex session import: expected rollouts of thread ${location.resumeId}, got ${files.map((f) => f.name).join(", ")}`,
    );
  }
}

/** Most bytes read to find a rollout's first line (its `session_meta`, which holds the base instructions). */
const FIRST_LINE_LIMIT = 4 * 1024 * 1024;

/**
 * The first line of the file at `path` (without its newline); `undefined` when unreadable, not a
 * regular file (never waited on: see `openRegularFile`), or longer than {@link FIRST_LINE_LIMIT}.
 */
async function firstLine(path: string): Promise<string | undefined> {
  let file;
  try {
    file = (await openRegularFile(path, "read", "read rollout")).handle;
  } catch {
    return undefined;
  }
  try {
    const chunks: Buffer[] = [];
    for (let read = 0; read < FIRST_LINE_LIMIT;) {
      const chunk = Buffer.alloc(64 * 1024);
      const { bytesRead } = await file.read(chunk, 0, chunk.length, read);
      if (bytesRead === 0) return undefined;
      const end = chunk.subarray(0, bytesRead).indexOf(10);
      chunks.push(chunk.subarray(0, end === -1 ? bytesRead : end));
      if (end !== -1) return Buffer.concat(chunks).toString("utf8");
      read += bytesRead;
    }
    return undefined;
  } finally {
    await file.close();
  }
}

/**
 * Where a fork's rollout says it was forked from: its `session_meta` line names the parent thread
 * (`forked_from_id`) and the first of the parent's rollout entries (by `ordinal`) the fork does not
 * read (`forked_from_ordinal_exclusive`). `undefined` for a thread that is no fork.
 */
async function forkPoint(path: string): Promise<{ readonly threadId: string; readonly ordinal?: number } | undefined> {
  const line = await firstLine(path);
  if (!line) return undefined;
  try {
    const meta = JSON.parse(line) as { type?: unknown; payload?: { forked_from_id?: unknown; forked_from_ordinal_exclusive?: unknown } };
    const parent = meta.payload?.forked_from_id;
    if (meta.type !== "session_meta" || typeof parent !== "string" || !THREAD_ID.test(parent)) return undefined;
    const ordinal = meta.payload?.forked_from_ordinal_exclusive;
    return { threadId: parent, ...(Number.isSafeInteger(ordinal) ? { ordinal: ordinal as number } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * The length of rollout `content` through its entries with an `ordinal` below `ordinal` (whole
 * lines only): where the first entry at or past it begins, else where the last whole line ends.
 */
function cutBefore(content: Buffer, ordinal: number | undefined): number {
  let start = 0;
  for (;;) {
    const end = content.indexOf(10, start);
    if (end === -1) return start;
    if (ordinal !== undefined) {
      const head = content.subarray(start, Math.min(end, start + 200)).toString("utf8");
      const found = /"ordinal":(\d+)/.exec(head);
      if (found && Number(found[1]) >= ordinal) return start;
    }
    start = end + 1;
  }
}

/** `CODEX_HOME` of a run with extra environment `env` (else `HOME/.codex`). */
export function codexHomeOf(config: CodexConfig, env: Readonly<Record<string, string>> | undefined): string {
  const all = codexEnv(config, env);
  return all.CODEX_HOME ?? join(all.HOME ?? homedir(), ".codex");
}

/**
 * The lineage of fork `forkId` just made from `parentId` (whose checkpoint data is `parent`) in
 * `home`: the parent's own lineage, then each rollout of the parent through the fork point (the
 * entries before the ordinal the fork's `session_meta` names), as long as it is now. `undefined`
 * when the fork's rollout names no parent (nothing to carry).
 * @throws as `readSessionFileFrom` for a parent rollout that is not a regular file or is over
 * `SESSION_FILE_LIMIT_BYTES`; Error for one removed meanwhile; the I/O error.
 */
export async function forkLineage(
  home: string,
  forkId: string,
  parentId: string,
  parent: CodexCheckpointData,
): Promise<readonly LineageFile[] | undefined> {
  if (!THREAD_ID.test(forkId) || !THREAD_ID.test(parentId)) return undefined;
  const own = (await rollouts(home, forkId))[0];
  const point = own ? await forkPoint(own) : undefined;
  if (point?.threadId !== parentId) return undefined;
  const files: LineageFile[] = [...(parent.lineage ?? [])];
  for (const path of await rollouts(home, parentId)) {
    const part = await readSessionFileFrom(path, 0, () => true);
    if (!part) throw new Error(`rollout ${path} of fork parent ${parentId} is gone`);
    const bytes = cutBefore(part.content, point.ordinal);
    if (bytes > 0) files.push({ name: relative(home, path).split(sep).join("/"), bytes });
  }
  return files.length > 0 ? files : undefined;
}

/**
 * The rollouts of the threads `threadId` was forked from, found by the fork points their first
 * lines name, each as long as it is now (for an export without the checkpoint's recorded lineage).
 */
async function foundLineage(home: string, threadId: string): Promise<LineageFile[]> {
  const files: LineageFile[] = [];
  const seen = new Set([threadId]);
  for (let id = threadId; ;) {
    const first = (await rollouts(home, id))[0];
    const point = first ? await forkPoint(first) : undefined;
    if (!point || seen.has(point.threadId)) return files;
    seen.add(point.threadId);
    for (const path of await rollouts(home, point.threadId)) files.push({ name: relative(home, path).split(sep).join("/"), bytes: -1 });
    id = point.threadId;
  }
}

/**
 * Moves a Codex thread between hosts: its rollout `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<thread
 * id>.jsonl` (`CODEX_HOME`: `codexHome`, else the run's env, else `~/.codex`). An import writes it
 * at the same path below this host's `CODEX_HOME`, replacing other copies; `thread/resume` then
 * finds it by id, whatever this host's cwd. Codex's own SQLite state (thread index, goals, memories)
 * is not carried: resume reads the rollout. An import or append drops codex's projection of the
 * threads it wrote (its history database), which codex then builds again from the rollout.
 */
export function codexSessionTransfer(config: CodexConfig, evict: (threadId: string) => Promise<void>): SessionTransfer {
  const homeOf = (location: SessionLocation): string => {
    if (!THREAD_ID.test(location.resumeId)) throw new TypeError(`codex thread id must be a UUID, got ${JSON.stringify(location.resumeId)}`);
    return codexHomeOf(config, location.env);
  };
  /**
   * The fork lineage's rollouts, each from `from(name)` on: through the lengths the checkpoint
   * recorded when the fork was made, else (no data) as found now.
   * @throws Error when a recorded one is missing here or shorter than recorded.
   */
  const lineageFrom = async (
    home: string,
    location: SessionLocation,
    from: (name: string) => number,
    signal?: AbortSignal,
  ): Promise<SessionFileSlice[]> => {
    const recorded = readCheckpointData(location.data).lineage;
    const files = recorded ?? (await foundLineage(home, location.resumeId));
    const slices: SessionFileSlice[] = [];
    for (const file of files) {
      if (!ROLLOUT_NAME.test(file.name)) throw new Error(`codex fork lineage: not a rollout name: ${file.name}`);
      const path = join(home, ...file.name.split("/"));
      await checkSessionFolders(home, path);
      const part = await readSessionFileFrom(
        path,
        file.bytes < 0 ? from(file.name) : Math.min(from(file.name), file.bytes),
        () => true,
        signal,
      );
      if (!part || part.bytes < file.bytes)
        throw new Error(`the rollout ${file.name} that fork ${location.resumeId} continues from is missing or shorter here`);
      const bytes = file.bytes < 0 ? part.bytes : file.bytes;
      slices.push({ ...part, name: file.name, bytes, content: part.content.subarray(0, Math.max(0, bytes - part.offset)) });
    }
    return slices;
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
        // A rollout below a link planted in place of a session folder is refused, not read through.
        await checkSessionFolders(home, path);
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
      if (slices.some((slice) => slice.bytes < from(slice.name) || holds(slice.content)))
        return [...slices, ...(await lineageFrom(home, location, from, signal))];
      if (Date.now() >= deadline) {
        // The turn may lie before the offsets (a rollout written anew): the whole files decide, as a whole export would.
        const whole = slices.some((slice) => slice.offset > 0) ? await read(() => 0) : [];
        if (whole.some((slice) => holds(slice.content)))
          return [
            ...whole.map((slice) => ({ name: slice.name, ...partFrom(slice, from(slice.name)) })),
            ...(await lineageFrom(home, location, from, signal)),
          ];
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
      for (const slice of slices) await checkSessionFolders(home, join(home, ...slice.name.split("/")), "append session file");
      const threads = [...new Set([location.resumeId, ...slices.map((slice) => threadOf(slice.name)!)])];
      for (const thread of threads) await evict(thread);
      // What follows `offset` is replaced, and codex's projection may have read past it: it goes
      // first, so a projection that cannot be dropped leaves every rollout as it was.
      await dropHistoryProjection(home, threads);
      for (const slice of slices) await appendSessionFile(join(home, ...slice.name.split("/")), slice.offset, slice.content);
    },
    async importSession(location, files, signal): Promise<void> {
      signal?.throwIfAborted();
      checkNames(location, files);
      const home = homeOf(location);
      const own = files.filter((file) => isOwn(location, file.name));
      const targets = own.map((file) => join(home, ...file.name.split("/")));
      // A link planted in place of a rollout or a folder above it goes before the parked process
      // ends and writes to it, and before the import writes there.
      await unlinkPlantedLinks(
        home,
        files.map((file) => join(home, ...file.name.split("/"))),
      );
      await evict(location.resumeId);
      // The lineage's rollouts: a local copy that already begins with the stored bytes (the same
      // thread, continued here since) is kept; any other is written, ending a process serving it.
      const lineage = [];
      for (const file of files.filter((f) => !isOwn(location, f.name))) {
        const target = join(home, ...file.name.split("/"));
        const local = await readSessionFileFrom(target, 0, () => true, signal).catch(() => undefined);
        if (local && local.bytes >= file.content.byteLength && local.content.subarray(0, file.content.byteLength).equals(file.content))
          continue;
        await evict(threadOf(file.name)!);
        lineage.push({ target, file });
      }
      // Codex's projection of the old bytes would outlive them (see dropHistoryProjection): it goes
      // before any rollout is written, so a projection that cannot be dropped leaves them as they were.
      await dropHistoryProjection(home, [location.resumeId, ...lineage.map(({ file }) => threadOf(file.name)!)]);
      const stale = (await rollouts(home, location.resumeId)).filter((path) => !targets.includes(path));
      for (const [i, file] of own.entries()) await writeSessionFile(targets[i]!, file.content, i === 0 ? stale : []);
      for (const { target, file } of lineage) await writeSessionFile(target, file.content);
    },
  };
}
