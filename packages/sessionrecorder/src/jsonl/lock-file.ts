// The writer lock of one session key: a lock file created atomically (written to a private
// temporary file, fsynced, then hard-linked into place, which fails when the lock exists), holding
// the writer's pid, host name and process start time. A lock whose holder is provably dead (same
// host, and the pid no longer exists, is a zombie, or now belongs to a process that started at another time) is
// stale and is taken over, under a takeover claim so that exactly one process replaces it; any
// other lock refuses the second writer.
import { createHash, randomUUID } from "node:crypto";
import { procStatFields } from "@adaptor/errors/internal";
import { link, lstat, open, readFile, rename, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
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

/** Field `index` (1-based, as proc(5) numbers them; 3 or more) of `/proc/<pid>/stat` (Linux), or undefined where that is not readable. */
function procStatField(pid: number, index: number): string | undefined {
  return procStatFields(pid)?.[index - 3];
}

/** Start time of `pid` (field 22, clock ticks since boot), or undefined where /proc is not readable. */
function processStartTime(pid: number): string | undefined {
  return procStatField(pid, 22);
}

/** This process's start time ({@link processStartTime}), read with the first lock it takes, not when the module loads. */
let selfStart: { readonly value: string | undefined } | undefined;
const selfStartTime = (): string | undefined => (selfStart ??= { value: processStartTime(process.pid) }).value;

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

/**
 * True unless the holder is provably gone: same host, and its pid is dead, a zombie (exited or
 * killed, not yet reaped by its parent: state `Z` or `X` in /proc), or reused.
 */
export function holderIsLive(holder: LockContent): boolean {
  if (holder.hostname !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  const state = procStatField(holder.pid, 3);
  if (state === "Z" || state === "X") return false;
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

/** How many times acquiring retries when a lock changes hands under it, and how deep takeovers of takeovers go. */
const MAX_ATTEMPTS = 50;
const MAX_TAKEOVER_DEPTH = 3;

/** Why one try did not take the file: another process took or cleared it first (try again), or a takeover is under way in a live process (wait, then try again). */
type Missed = "changed" | "busy";

/**
 * Takes the lock at `path` for `key`.
 * @throws EventLogLockedError while a live holder (or an unreadable lock) is in the way.
 */
export async function acquireLock(path: string, key: string): Promise<HeldLock> {
  const token = randomUUID();
  const startTime = selfStartTime();
  const content: LockContent = {
    pid: process.pid,
    hostname: hostname(),
    acquiredAt: new Date().toISOString(),
    token,
    ...(startTime !== undefined ? { startTime } : {}),
  };
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const missed = await take(path, key, content, 0);
    if (missed === undefined) return { token, release: () => releaseLock(path, token) };
    // Another process is taking over the same stale lock: it finishes within a few file operations.
    if (missed === "busy") await new Promise((resolve) => setTimeout(resolve, 2 + attempt * 2));
  }
  throw new EventLogLockedError(key, undefined, "a lock that keeps changing hands");
}

/**
 * One try at `path`: links a fresh file holding `content` into place (which fails when a file is
 * there). A stale file in the way is replaced only under a takeover claim: a second lock file
 * whose name is derived from `path` and the stale file's token, taken by this same procedure. The
 * claim holder alone checks that the stale file is still there and renames its own file over it,
 * atomically, so the path is never empty during a takeover (no third process can link in) and
 * two processes can never both replace one stale file. Resolves undefined once taken.
 * @throws EventLogLockedError for a live holder, an unreadable file in the way, or takeovers nested too deep.
 */
async function take(path: string, key: string, content: LockContent, depth: number): Promise<Missed | undefined> {
  const temporary = join(dirname(path), `.${randomUUID()}.tmp`);
  const handle = await open(temporary, "wx", 0o600);
  try {
    try {
      await handle.writeFile(JSON.stringify(content));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temporary, path);
      return undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = await readLock(path);
    if (holder === undefined) return "changed";
    if (holder === "malformed") throw new EventLogLockedError(key, undefined, `an unreadable lock file ${path}`);
    if (holder === "not_a_file") {
      throw new EventLogLockedError(
        key,
        undefined,
        `a lock path that is not a regular file (a symbolic link, a directory, ...): ${path}; remove it by hand`,
      );
    }
    if (holderIsLive(holder)) {
      if (depth > 0) return "busy";
      throw new EventLogLockedError(key, holderOf(holder));
    }
    if (depth >= MAX_TAKEOVER_DEPTH) {
      throw new EventLogLockedError(key, undefined, `stale takeover files that keep failing next to ${path}; remove them by hand`);
    }
    const claim = claimPath(path, holder.token);
    const claimed = await take(claim, key, content, depth + 1);
    if (claimed !== undefined) return claimed === "busy" ? "busy" : "changed";
    try {
      const now = await readLock(path);
      if (typeof now !== "object" || now.token !== holder.token) return "changed";
      await rename(temporary, path);
      return undefined;
    } finally {
      await releaseLock(claim, content.token);
    }
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

/** The takeover claim of the stale file at `path` holding `token`: a hidden file of fixed length beside it. */
function claimPath(path: string, token: string): string {
  const digest = createHash("sha256")
    .update(`${basename(path)}\0${token}`)
    .digest("hex")
    .slice(0, 32);
  return join(dirname(path), `.${digest}.takeover`);
}

async function releaseLock(path: string, token: string): Promise<void> {
  const holder = await readLock(path).catch(() => undefined);
  if (typeof holder !== "object" || holder.token !== token) return;
  await unlink(path).catch(() => undefined);
}
