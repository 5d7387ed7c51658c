// The writer lock of one session key: a lock file created atomically (written to a private
// temporary file, fsynced, then hard-linked into place, which fails when the lock exists), holding
// the writer's pid, host name and process start time. A lock whose holder is provably dead (same
// host, and the pid no longer exists or now belongs to a process that started at another time) is
// stale and is taken over; any other lock refuses the second writer.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { link, lstat, open, readFile, rename, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { EventLogLockedError, type LockHolder } from "../errors/event-log-locked-error.js";

/** The content of a lock file. */
interface LockContent extends LockHolder {
  readonly token: string;
  /** Start time of the holder process in clock ticks since boot (Linux), when known. */
  readonly startTime?: string;
}

/** A lock this process holds. */
export interface HeldLock {
  readonly token: string;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): Promise<void>;
}

/** Start time of `pid` from /proc (Linux), or undefined where that is not readable. */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22, counted after the parenthesised command name (which may contain spaces).
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

const SELF_START = processStartTime(process.pid);

function parseLock(text: string): LockContent | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockContent>;
    if (
      typeof value.pid === "number" &&
      typeof value.hostname === "string" &&
      typeof value.token === "string" &&
      typeof value.acquiredAt === "string"
    ) {
      return value as LockContent;
    }
  } catch {
    // not a lock we wrote
  }
  return undefined;
}

/** The lock at `path`: undefined when absent, "malformed" when it is not a lock. */
async function readLock(path: string): Promise<LockContent | "malformed" | "not_a_file" | undefined> {
  try {
    // A symbolic link, a directory or a device at the lock path is never followed nor read.
    if (!(await lstat(path)).isFile()) return "not_a_file";
    return parseLock(await readFile(path, "utf8")) ?? "malformed";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** True unless the holder is provably gone: same host, and its pid is dead or reused. */
export function holderIsLive(holder: LockContent): boolean {
  if (holder.hostname !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  if (holder.startTime === undefined) return true;
  const now = processStartTime(holder.pid);
  return now === undefined || now === holder.startTime;
}

/** True when the lock at `path` exists and its holder is live (a malformed lock, or a lock path that is not a regular file, counts as live). */
export async function lockIsHeld(path: string): Promise<boolean> {
  const holder = await readLock(path);
  if (holder === undefined) return false;
  return holder === "malformed" || holder === "not_a_file" || holderIsLive(holder);
}

const holderOf = (c: LockContent): LockHolder => ({ pid: c.pid, hostname: c.hostname, acquiredAt: c.acquiredAt });

/**
 * Takes the lock at `path` for `key`.
 * @throws EventLogLockedError while a live holder (or an unreadable lock) is in the way.
 */
export async function acquireLock(path: string, key: string): Promise<HeldLock> {
  const token = randomUUID();
  const content: LockContent = {
    pid: process.pid,
    hostname: hostname(),
    acquiredAt: new Date().toISOString(),
    token,
    ...(SELF_START !== undefined ? { startTime: SELF_START } : {}),
  };
  const temporary = `${path}.${token}.tmp`;
  const handle = await open(temporary, "wx", 0o600);
  try {
    await handle.writeFile(JSON.stringify(content));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await link(temporary, path);
        return { token, release: () => releaseLock(path, token) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = await readLock(path);
      if (holder === undefined) continue;
      if (holder === "malformed") throw new EventLogLockedError(key, undefined, `an unreadable lock file ${path}`);
      if (holder === "not_a_file") {
        throw new EventLogLockedError(
          key,
          undefined,
          `a lock path that is not a regular file (a symbolic link, a directory, ...): ${path}; remove it by hand`,
        );
      }
      if (holderIsLive(holder)) throw new EventLogLockedError(key, holderOf(holder));
      await breakStaleLock(path, key, holder, token);
    }
    throw new EventLogLockedError(key, undefined, "a lock that keeps changing hands");
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

/**
 * Moves a stale lock aside atomically and removes it. If what was moved is not the stale lock
 * read a moment before (another writer took over in between), it is put back and the caller is
 * refused, so a live lock is never removed.
 */
async function breakStaleLock(path: string, key: string, stale: LockContent, token: string): Promise<void> {
  const aside = `${path}.${token}.stale`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const moved = await readLock(aside);
  if (typeof moved === "object" && moved.token !== stale.token) {
    await link(aside, path).catch(() => undefined);
    await unlink(aside).catch(() => undefined);
    throw new EventLogLockedError(key, holderOf(moved));
  }
  await unlink(aside).catch(() => undefined);
}

async function releaseLock(path: string, token: string): Promise<void> {
  const holder = await readLock(path).catch(() => undefined);
  if (typeof holder !== "object" || holder.token !== token) return;
  await unlink(path).catch(() => undefined);
}
