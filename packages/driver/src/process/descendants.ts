import { closeSync, openSync, readdirSync, readlinkSync, readSync } from "node:fs";
import { signalGroup } from "./kill.js";
import { followPidWindows, inWindow, SharedWindowReads, type PidWindow } from "./pid-windows.js";
import { RememberedIds } from "./remembered-ids.js";

export { inWindow, type PidWindow } from "./pid-windows.js";

/** One process as `/proc/<pid>/stat` describes it. */
export interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  /** Session id: the pid of the process that created the session (setsid). */
  readonly sid: number;
  /** Start time in clock ticks since boot: with the pid, identifies the process (pids are reused). */
  readonly start: string;
}

const PROC = "/proc";

/**
 * The variable every CLI child is started with (a fresh UUID per process). Its descendants inherit
 * it, so they are found even after they left the CLI's tree (a background job whose shell exited).
 */
export const PROCESS_TAG_VAR = "ADAPTOR_PROCESS_TAG";
/** How often live CLIs' process trees are scanned, in ms. */
export const DESCENDANT_POLL_MS = 500;

/**
 * The buffer every `/proc` read goes through. A scan reads two small files per process on the host,
 * and `readFileSync` would allocate fresh 8 KiB buffers for each (a `/proc` file's size reads as 0):
 * hundreds of allocations per scan that pile up in the native heap between collections.
 */
const SCRATCH = Buffer.allocUnsafeSlow(16 * 1024);

/**
 * The whole content of the `/proc` file at `path`, in {@link SCRATCH} (or a larger one-off buffer when
 * it does not fit), valid until the next call; undefined when unreadable (gone, another user's).
 */
function readProcFile(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    let buffer = SCRATCH;
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const grown = Buffer.allocUnsafeSlow(buffer.length * 2);
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) return buffer.subarray(0, length);
      length += read;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** True when the initial environment of `pid` holds the entry `NAME=value`; false when unreadable. */
export function processEnvHas(pid: number, entry: string): boolean {
  return environHas(pid, Buffer.from(entry));
}

/**
 * What `/proc/<pid>/environ` says of the entry `NAME=value`: `"has"`; `"lacks"` (also when it cannot
 * be read: gone, another user's); `"empty"` when it reads empty. A process in the middle of an
 * `execve` (`env VAR=x -- server` handing over to the server) reads empty until the new program's
 * environment is set up, for microseconds on an idle machine and longer on a busy one; so does one
 * started with no environment at all. Read again a little later to tell them apart.
 */
export function processEnvEntry(pid: number, entry: string): EnvEntryState {
  return environState(pid, Buffer.from(entry));
}

/**
 * Whether `pid` is still handing over to a program whose environment will hold `entry`
 * (`NAME=value`), rather than being a process of its own: its command line holds `entry` (a
 * launcher such as `env NAME=value program`, or a shell script running one), or it is a fork whose
 * exec is not done yet (its executable and command line are still its parent's). Its environment,
 * meanwhile, is the launcher's or the parent's. False when it cannot be read (gone, another user's).
 */
export function processHandingOver(pid: number, entry: string): boolean {
  const read = readProcFile(`${PROC}/${pid}/cmdline`);
  if (!read || read.length === 0) return false;
  if (read.includes(entry)) return true;
  const cmdline = Buffer.from(read); // the next read reuses the buffer
  const parent = readStat(pid)?.ppid;
  if (parent === undefined || parent <= 0) return false;
  if (!readProcFile(`${PROC}/${parent}/cmdline`)?.equals(cmdline)) return false;
  const exe = (of: number): string | undefined => {
    try {
      return readlinkSync(`${PROC}/${of}/exe`);
    } catch {
      return undefined;
    }
  };
  const own = exe(pid);
  return own !== undefined && own === exe(parent);
}

/** What a process's environment says of one entry ({@link processEnvEntry}). */
export type EnvEntryState = "has" | "lacks" | "empty";

/**
 * Sends `signal` to `pid`, and to its process group when it leads one (what it started is in that
 * group). Never throws. @returns false when the process is gone (or not ours to signal).
 */
export function signalProcess(pid: number, signal: NodeJS.Signals): boolean {
  const stat = readStat(pid);
  if (!stat) return false;
  if (stat.pgid === pid) return signalGroup(pid, signal);
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** The process group of live `pid` (from its `/proc/<pid>/stat`); undefined when gone or unreadable. */
export function processGroupOf(pid: number): number | undefined {
  return readStat(pid)?.pgid;
}

/** Told the pid of each process whose environment is read for a tag; none by default. */
let environRead: ((pid: number) => void) | undefined;

/** Has `observer` told the pid of every process whose environment is read for a tag from now on (for tests); `undefined` stops it. */
export function observeEnvironReads(observer: ((pid: number) => void) | undefined): void {
  environRead = observer;
}

/** True when the initial environment of `pid` holds `needle` (`NAME=value`); false when unreadable. */
function environHas(pid: number, needle: Buffer): boolean {
  return environState(pid, needle) === "has";
}

/** What the initial environment of `pid` says of `needle` (`NAME=value`); see {@link processEnvEntry}. */
function environState(pid: number, needle: Buffer): EnvEntryState {
  environRead?.(pid);
  const environ = readProcFile(`${PROC}/${pid}/environ`);
  if (!environ) return "lacks";
  if (environ.length === 0) return "empty";
  for (let at = environ.indexOf(needle); at !== -1; at = environ.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    if ((at === 0 || environ[at - 1] === 0) && (end === environ.length || environ[end] === 0)) return "has";
  }
  return "lacks";
}

function readStat(pid: number): ProcStat | undefined {
  const stat = readProcFile(`${PROC}/${pid}/stat`);
  if (!stat) return undefined;
  // "pid (comm) state ppid pgrp session ... starttime(22nd field)"; comm may hold spaces and ')'.
  // Everything after comm is ASCII, and ')' (0x29) is never part of a multi-byte UTF-8 character.
  const fields = stat.toString("latin1", stat.lastIndexOf(0x29) + 2).split(" ");
  const state = fields[0];
  if (state === "Z" || state === "X") return undefined; // dead, only waiting to be reaped
  return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), sid: Number(fields[3]), start: fields[19] ?? "" };
}

/** This process's stat as {@link hostStat} read it in the current synchronous pass (null: not read yet). */
let hostStatRead: ProcStat | undefined | null = null;

/**
 * This process's stat (the session and group whose members no tracker takes), read once per
 * synchronous pass and read again in the next: the deep refreshes and catch-ups of many CLIs made
 * together each asked for it.
 */
function hostStat(): ProcStat | undefined {
  if (hostStatRead === null) {
    hostStatRead = readStat(process.pid);
    queueMicrotask(() => (hostStatRead = null));
  }
  return hostStatRead;
}

/**
 * The direct children of `pid`, from `/proc/<pid>/task/<tid>/children` of each of its threads (a
 * child is listed under the thread that started it); undefined when they cannot be read (the
 * process is gone, or the kernel has no such file). Counts the process and the files read in `cost`.
 */
function childrenOf(pid: number, cost?: { visits: number; files: number }): number[] | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`${PROC}/${pid}/task`);
  } catch {
    return undefined;
  }
  if (cost) {
    cost.visits++;
    cost.files += 1 + tasks.length;
  }
  const children: number[] = [];
  for (const tid of tasks) {
    if (!readChildrenList(pid, tid, children)) {
      if (tid === String(pid)) return undefined; // the main thread's list is unreadable: no such file here
      continue; // a thread that ended meanwhile
    }
  }
  return children;
}

/**
 * Adds the pids of `/proc/<pid>/task/<tid>/children` (decimal pids, each followed by a space) to
 * `into`, read from the bytes (this process's list holds every CLI it runs); false when unreadable.
 */
function readChildrenList(pid: number, tid: number | string, into: number[]): boolean {
  const list = readProcFile(`${PROC}/${pid}/task/${tid}/children`);
  if (!list) return false;
  let value = -1;
  for (let at = 0; at < list.length; at++) {
    const digit = (list[at] as number) - 0x30;
    if (digit >= 0 && digit <= 9) value = (value < 0 ? 0 : value * 10) + digit;
    else if (value >= 0) {
      into.push(value);
      value = -1;
    }
  }
  if (value >= 0) into.push(value);
  return true;
}

/**
 * The children listed under the main thread of `pid` (`/proc/<pid>/task/<pid>/children`): those it
 * started and those handed to the process as orphans while that thread lives; undefined when
 * unreadable.
 */
function mainThreadChildrenOf(pid: number): number[] | undefined {
  const children: number[] = [];
  return readChildrenList(pid, pid, children) ? children : undefined;
}

/** Whether this kernel lists a thread's children in `/proc` (checked once, on this process's main thread). */
let childrenFiles: boolean | undefined;
function hasChildrenFiles(): boolean {
  childrenFiles ??= readProcFile(`${PROC}/${process.pid}/task/${process.pid}/children`) !== undefined;
  return childrenFiles;
}

/**
 * What the tree walks have read so far: processes whose children lists were read, and the files
 * that took (the `task` folder and one children list per thread). Their ratio is the cost of
 * walking one process, which {@link refreshAllTrackers} weighs against one scan of `/proc`.
 */
const walked = { visits: 0, files: 0 };

/** The entries of `/proc`; undefined where there is none. */
function procNames(): string[] | undefined {
  try {
    return readdirSync(PROC);
  } catch {
    return undefined;
  }
}

/**
 * Every live process, by pid (from `names`, the entries of `/proc`, read now when not given); empty
 * where there is no `/proc`. With `since`, only the processes whose pid is in that window.
 */
function scan(names: string[] | undefined = procNames(), since?: PidWindow): Map<number, ProcStat> {
  const all = new Map<number, ProcStat>();
  if (!names) return all;
  if (!since) processScanned?.();
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isSafeInteger(pid) || pid <= 0) continue;
    if (since && !inWindow(pid, since)) continue;
    const stat = readStat(pid);
    if (stat) all.set(pid, stat);
  }
  return all;
}

/** Told each time the stat of every process in `/proc` is read; none by default. */
let processScanned: (() => void) | undefined;

/** Has `observer` told each time the stat of every process in `/proc` is read from now on (for tests); `undefined` stops it. */
export function observeProcessScans(observer: (() => void) | undefined): void {
  processScanned = observer;
}

/** Above this many pids, a window of them is read through a listing of `/proc` rather than pid by pid. */
const DIRECT_WINDOW = 256;

/**
 * The live pids the kernel handed out in `window` (see {@link PidWindow}), each with its stat: read
 * directly when the window is small, else through the entries of `/proc` in it. A pid read directly
 * may be a thread's: a thread's id comes from the same numbers, and `/proc/<tid>` answers for it
 * (with its process's parent, session, group and environment) although `/proc` does not list it;
 * a signal sent to it reaches its whole process. Check {@link isProcess} before taking one.
 */
export function startedIn(window: PidWindow): Iterable<ProcStat> {
  if (window.after > window.last || window.last - window.after > DIRECT_WINDOW) return scan(procNames(), window).values();
  const found: ProcStat[] = [];
  for (let pid = window.after + 1; pid <= window.last; pid++) {
    const stat = readStat(pid);
    if (stat) found.push(stat);
  }
  return found;
}

/**
 * What catch-ups made one right after the other read of `/proc` ({@link DescendantTracker.catchUp}):
 * the stat of each process started in their windows, the tag entries of each whose environment
 * is looked at, the start time of each parent and session leader looked at,
 * each read once for all of them. With many CLIs ending at once, each catch-up's
 * window holds the others' processes: read per tracker, that was every tracker times every process
 * started meanwhile. Lives for one synchronous pass (what it holds is what was read then).
 */
export class CatchUpReads {
  readonly #windows = new SharedWindowReads<ProcStat>(startedIn);
  readonly #tags = new Map<number, { readonly start: string; readonly tags: readonly string[] }>();
  readonly #starts = new Map<number, string | undefined>();
  /**
   * The start time of each session leader looked at, by session id (undefined: gone or unreadable),
   * for {@link DescendantTracker.#inOlderSession}: read once for all the catch-ups.
   */
  readonly leaders = new Map<number, number | undefined>();

  /** The start time of live `pid` (clock ticks since boot), read once for all the catch-ups; undefined when gone. */
  startOf(pid: number): string | undefined {
    if (!this.#starts.has(pid)) this.#starts.set(pid, readStat(pid)?.start);
    return this.#starts.get(pid);
  }

  /** {@link startedIn}, each pid read once: by ascending pid. */
  startedIn(window: PidWindow): Iterable<ProcStat> {
    return this.#windows.in(window);
  }

  /**
   * The {@link PROCESS_TAG_VAR} entries of `stat`'s initial environment, read once per process (not
   * at all for an orphan candidate whose environment the last read of where orphans are handed read);
   * one that reads empty (mid-`execve`) is not remembered.
   */
  tagsOf(stat: ProcStat): readonly string[] {
    const known = this.#tags.get(stat.pid) ?? orphanTags.get(stat.pid);
    if (known?.start === stat.start) return known.tags;
    const tags = tagEntriesOf(stat.pid);
    if (tags === undefined) return []; // mid-execve: read again when asked again
    this.#tags.set(stat.pid, { start: stat.start, tags });
    return tags;
  }
}

/** Whether `id` is a process (a thread group's leader), not another thread of one: see {@link threadGroupOf}. */
function isProcess(id: number): boolean {
  return threadGroupOf(id) === id;
}

/**
 * The process (thread group) `id` belongs to, from the `Tgid` of `/proc/<id>/status`: `id` itself
 * for a process, its process's pid for a thread; undefined when gone or unreadable.
 */
export function threadGroupOf(id: number): number | undefined {
  const status = readProcFile(`${PROC}/${id}/status`);
  if (!status) return undefined;
  const at = status.indexOf("\nTgid:");
  if (at === -1) return undefined;
  const end = status.indexOf(0x0a, at + 1);
  const tgid = Number(status.toString("latin1", at + 6, end === -1 ? status.length : end).trim());
  return Number.isSafeInteger(tgid) ? tgid : undefined;
}

/**
 * The pid this pid namespace handed out last (the last field of `/proc/loadavg`); undefined where
 * it cannot be read or `/proc` is not this process's pid namespace's (its pids would not be ours).
 * Read before a listing, it is where {@link DescendantTracker.catchUp} starts.
 */
export function lastPid(): number | undefined {
  const loadavg = readProcFile(`${PROC}/loadavg`);
  if (!loadavg) return undefined;
  const last = Number(loadavg.toString("latin1").trim().split(" ").pop());
  return Number.isSafeInteger(last) && last > 0 && procIsOurs() ? last : undefined;
}

/** Whether `/proc` numbers processes as this process's pid namespace does (checked once). */
let ownProc: boolean | undefined;
function procIsOurs(): boolean {
  if (ownProc === undefined) {
    try {
      ownProc = readlinkSync(`${PROC}/self`) === String(process.pid);
    } catch {
      ownProc = false;
    }
  }
  return ownProc;
}

/** The children of each process of a scan, by parent pid: made once per scan, whatever number of trackers it serves. */
const childrenIndexes = new WeakMap<Map<number, ProcStat>, Map<number, number[]>>();
function childrenIndex(all: Map<number, ProcStat>): Map<number, number[]> {
  let children = childrenIndexes.get(all);
  if (children) return children;
  children = new Map();
  for (const stat of all.values()) {
    const list = children.get(stat.ppid);
    if (list) list.push(stat.pid);
    else children.set(stat.ppid, [stat.pid]);
  }
  childrenIndexes.set(all, children);
  return children;
}

/**
 * The processes a CLI started, however deep and whatever session or process group they moved to
 * (a shell tool that calls `setsid` leaves the group the driver signals): while the CLI lives, its
 * tree is walked every {@link DESCENDANT_POLL_MS} (through the children lists of the CLI and of
 * the processes found, {@link DescendantTracker.refreshTree}) and again before every signal; before
 * ending them, every process whose environment carries the CLI's {@link PROCESS_TAG_VAR} is added
 * too (a background job whose shell already exited), looked for where the kernel hands orphans
 * ({@link DescendantTracker.refreshDeepTree}), or in every process in `/proc` where the kernel has
 * no children lists. Every process
 * found is remembered with its start time, so it is still found after its parent died and a reused
 * pid is never signalled. Linux only; elsewhere it finds nothing.
 */
export class DescendantTracker {
  readonly #root: number;
  readonly #tag: Buffer | undefined;
  readonly #known = new Map<number, string>();
  /**
   * Sessions and process groups its processes were seen in, kept after they end: each was created
   * by one of them (a process only enters a session or group it creates, or one of its parent's),
   * so whatever is still in one was started by them. The CLI's own session (it is started as a
   * session leader: the session's id is its pid) is one from the start: a job that moved to a
   * process group of its own there, without a tag, is no member of the CLI's group, which is what
   * is signalled with the CLI. An id the kernel handed out again (to a process on the host that
   * made a session or group of its own with it) is forgotten ({@link RememberedIds}).
   */
  readonly #sessions = new RememberedIds();
  readonly #groups = new RememberedIds();
  /** The CLI's start time (clock ticks since boot): nothing it started can be older. NaN when unknown. */
  readonly #rootStart: number;
  /** The session the CLI was started in (its own, when started detached); undefined when unknown. */
  readonly #rootSession: number | undefined;

  /** @param tag - the value of {@link PROCESS_TAG_VAR} the CLI was started with, if any. */
  constructor(root: number, tag?: string) {
    this.#root = root;
    this.#tag = tag === undefined ? undefined : Buffer.from(`${PROCESS_TAG_VAR}=${tag}`);
    const stat = readStat(root);
    this.#rootStart = Number(stat?.start ?? Number.NaN);
    this.#rootSession = stat?.sid;
    if (!Number.isNaN(this.#rootStart)) this.#sessions.note(root, this.#rootStart);
  }

  /**
   * Whether `stat`'s process is in a session created before the CLI started, other than the one the
   * CLI was started in: its leader (the pid that names it) is alive and older than the CLI. No
   * process the CLI started can be in one: a process enters only a session it creates or its
   * parent's, so every one of them is in the CLI's session or one created by one of them since,
   * and the kernel hands a session's pid to no other process while the session has members. Such a
   * process carries no tag of the CLI's, and its environment (a read that waits for a process that
   * is mapping memory, as a starting one does) need not be read. `leaders` caches each leader's
   * start time for one pass.
   */
  #inOlderSession(stat: ProcStat, leaders: Map<number, number | undefined>): boolean {
    if (this.#rootSession === undefined || stat.sid === this.#rootSession || Number.isNaN(this.#rootStart)) return false;
    if (!leaders.has(stat.sid)) {
      const leader = stat.sid === stat.pid ? stat : stat.sid > 0 ? readStat(stat.sid) : undefined;
      leaders.set(stat.sid, leader ? Number(leader.start) : undefined);
    }
    const start = leaders.get(stat.sid);
    return start !== undefined && start < this.#rootStart;
  }

  /** The value of {@link PROCESS_TAG_VAR} it looks for (`NAME=value`), if any. */
  get tagEntry(): Buffer | undefined {
    return this.#tag;
  }

  /** The CLI's start time in clock ticks since boot (NaN when unknown). */
  get rootStart(): number {
    return this.#rootStart;
  }

  /** Whether `pid` is a remembered descendant. */
  knows(pid: number): boolean {
    return this.#known.has(pid);
  }

  /** Remembers `stat`'s process as a descendant (one found by its tag) and the session and group it is in. */
  adopt(stat: ProcStat): void {
    this.#known.set(stat.pid, stat.start);
    this.#noteSession(stat);
  }

  /** Notes the session and group `stat`'s process is in, other than the CLI's own (its session is noted from the start, and its group is in that session). */
  #noteSession(stat: ProcStat): void {
    if (stat.sid !== this.#root) this.#sessions.note(stat.sid, Number(stat.start));
    if (stat.pgid !== this.#root) this.#groups.note(stat.pgid, Number(stat.start));
  }

  /**
   * Whether `stat`'s process is in a session or process group one of the CLI's processes was seen
   * in, and that session or group is still the one seen ({@link RememberedIds.holds}; `lookup` reads
   * a live process by pid). Never a CLI this host runs: it is no process of another CLI's turn.
   */
  #inSeenSession(stat: ProcStat, lookup: (pid: number) => ProcStat | undefined): boolean {
    if (ownedRoots().has(stat.pid)) return false;
    const startOf = (pid: number): number | undefined => {
      const found = lookup(pid);
      return found ? Number(found.start) : undefined;
    };
    return this.#sessions.holds(stat.sid, startOf) || this.#groups.holds(stat.pgid, startOf);
  }

  /**
   * Adds every live process younger than the CLI that is in a session or process group one of its
   * processes was seen in ({@link #sessions}): a job that cleared its environment (no tag) and left
   * the tree is still in the session a tagged process created. The session and group of this
   * process (the host), and one whose id now names another ({@link #inSeenSession}), are never
   * taken, whatever was seen in them.
   */
  #refreshSessions(all: () => Map<number, ProcStat>): void {
    if (this.#sessions.size === 0 && this.#groups.size === 0) return;
    const host = hostStat();
    const every = all();
    const lookup = (pid: number): ProcStat | undefined => every.get(pid) ?? readStat(pid);
    for (const stat of every.values()) {
      if (stat.pid === this.#root || stat.pid === process.pid || this.#known.has(stat.pid)) continue;
      if (!(Number(stat.start) >= this.#rootStart)) continue; // older than the CLI: not started by it
      if (host && (stat.sid === host.sid || stat.pgid === host.pgid)) continue;
      if (this.#inSeenSession(stat, lookup)) this.#known.set(stat.pid, stat.start);
    }
  }

  /** The CLI's pid. */
  get root(): number {
    return this.#root;
  }

  /** Remembered descendants still alive (pids). */
  get pids(): number[] {
    return [...this.#known.keys()];
  }

  /** The processes a walk of this tree starts from: the CLI and every remembered descendant. */
  get visits(): number {
    return 1 + this.#known.size;
  }

  /**
   * Rescans `/proc`: adds every process below the CLI or below a remembered one (and with `deep`,
   * every process started since the CLI that carries its tag), forgets the dead.
   */
  refresh(all: Map<number, ProcStat> = scan(), deep = false): void {
    for (const [pid, start] of this.#known) {
      const stat = all.get(pid);
      if (stat?.start !== start) this.#known.delete(pid);
      else this.#noteSession(stat);
    }
    if (deep && this.#tag) {
      for (const stat of all.values()) {
        if (stat.pid === this.#root || stat.pid === process.pid || this.#known.has(stat.pid)) continue;
        if (Number(stat.start) < this.#rootStart) continue; // older than the CLI: cannot carry its tag
        if (environHas(stat.pid, this.#tag)) this.adopt(stat);
      }
    }
    const children = childrenIndex(all);
    const queue = [this.#root, ...this.#known.keys()];
    while (queue.length > 0) {
      const parent = queue.pop() as number;
      for (const pid of children.get(parent) ?? []) {
        if (pid === this.#root || this.#known.has(pid)) continue;
        this.adopt(all.get(pid) as ProcStat);
        queue.push(pid);
      }
    }
    if (deep) this.#refreshSessions(() => all);
  }

  /**
   * What {@link refresh} without `deep` finds, read from the tree alone: the children lists
   * (`/proc/<pid>/task/<tid>/children`) of the CLI and of every remembered process, and the stat of
   * each of them, instead of the stat of every process on the host. Forgets the dead.
   * @returns false (nothing changed) where the kernel has no children lists; {@link refresh} then.
   */
  refreshTree(): boolean {
    if (!hasChildrenFiles()) return false;
    for (const [pid, start] of this.#known) {
      const stat = readStat(pid);
      if (stat?.start !== start) this.#known.delete(pid);
      else this.#noteSession(stat);
    }
    const queue = [this.#root, ...this.#known.keys()];
    while (queue.length > 0) {
      const parent = queue.pop() as number;
      for (const pid of childrenOf(parent, walked) ?? []) {
        if (pid === this.#root || this.#known.has(pid)) continue;
        const stat = readStat(pid);
        if (!stat || stat.ppid !== parent) continue; // ended, or moved, since its parent's list was read
        this.adopt(stat);
        queue.push(pid);
      }
    }
    return true;
  }

  /**
   * What {@link refresh} with `deep` finds, without the stat of every process on the host: the walk
   * of {@link refreshTree}, and first every process started since the CLI that carries its tag among
   * those an orphan of the CLI's tree is handed to ({@link orphanCandidates}: the children of this
   * process and of each of its ancestors). (A tagged process that left that ancestry otherwise,
   * started by a daemon with a copy of the environment, is found only by the full scan.) Forgets
   * the dead.
   * @param candidates - those processes as read for several trackers at once, after this refresh
   *   was asked for ({@link refreshDeepSoon}); read now when not given.
   * @param all - the processes a member of a session or group other than the CLI's own can be
   *   (called only when one was seen), for {@link #refreshSessions}: by default those younger than
   *   the CLI among the candidates, with everything below them ({@link youngSubtrees}). When the
   *   CLI's own session is all that was seen, only the candidates in it and what is below them are
   *   read instead: a process enters no session but its parent's or one it creates, so a member
   *   out of the tree is such a candidate or below one.
   * @param tree - every process on the host, read once for several trackers after this refresh was
   *   asked for ({@link refreshDeepSoon}, when one read of `/proc` costs less than their walks): the
   *   tree is then found in it ({@link refresh} without `deep`), not walked; walked when not given.
   * @returns false (nothing changed) where the kernel has no children lists; {@link refresh} then.
   */
  refreshDeepTree(candidates?: readonly ProcStat[], all?: () => Map<number, ProcStat>, tree?: Map<number, ProcStat>): boolean {
    if (!hasChildrenFiles()) return false;
    const read = candidates ?? orphanCandidates();
    if (this.#tag) {
      const entry = this.#tag.toString("latin1");
      const leaders = new Map<number, number | undefined>();
      for (const stat of read) {
        if (stat.pid === this.#root || this.#known.has(stat.pid)) continue;
        if (Number(stat.start) < this.#rootStart) continue; // older than the CLI: cannot carry its tag
        if (this.#inOlderSession(stat, leaders)) continue;
        if (candidateTags(stat).includes(entry)) this.adopt(stat);
      }
    }
    if (tree) this.refresh(tree);
    else this.refreshTree();
    const ownSessionOnly = this.#groups.size === 0 && this.#sessions.size === 1 && this.#sessions.has(this.#root);
    if (ownSessionOnly)
      this.#refreshSessions(() =>
        youngSubtrees(
          read.filter((stat) => stat.sid === this.#root),
          this.#rootStart,
        ),
      );
    else this.#refreshSessions(all ?? (() => youngSubtrees(read, this.#rootStart)));
    return true;
  }

  /**
   * Catches what this tracker remembers up with the processes started since `since` (the
   * {@link lastPid} read before the listing this follows began), window after window until one in
   * which nothing started ({@link followPidWindows}): adds each that is a child of the CLI or of a
   * remembered one, carries the CLI's tag, or is in a session or group one of its processes was
   * seen in (not the host's, nor one whose id now names another: {@link #inSeenSession}). A job
   * that forks faster than a listing reads `/proc` is found under its newest pid, however slow the
   * listing was.
   * @param reads - what catch-ups made together read of `/proc` ({@link CatchUpReads}): each
   *   process started in their windows read once, whatever the number of trackers; a fresh one
   *   by default.
   * @returns false when it gave up (the host kept starting processes) or the last pid cannot be read.
   */
  catchUp(since: number | undefined, reads: CatchUpReads = new CatchUpReads()): boolean {
    const host = hostStat();
    const leaders = reads.leaders;
    /**
     * Whether `stat`'s process can carry the tag: not when its parent is older than the CLI and
     * neither this process nor an ancestor of it. Such a parent is no process of the CLI (the tag
     * is newer), and was not handed the process as an orphan (an orphan goes to an ancestor of the
     * process that started it, and the CLI's ancestors are this process's), so it started the
     * process, which got its environment: no tag. Nor when it is in a session created before the
     * CLI ({@link #inOlderSession}).
     */
    const mayCarryTag = (stat: ProcStat): boolean => {
      if (this.#inOlderSession(stat, leaders)) return false;
      const holders = hostAncestors();
      if (!holders || holders.has(stat.ppid)) return true;
      const parentStart = reads.startOf(stat.ppid);
      return parentStart === undefined || !(Number(parentStart) < this.#rootStart);
    };
    const entry = this.#tag?.toString("latin1");
    return followPidWindows(since, lastPid, (window) => {
      for (const stat of reads.startedIn(window)) {
        if (stat.pid === this.#root || stat.pid === process.pid || this.#known.has(stat.pid)) continue;
        if (!(Number(stat.start) >= this.#rootStart)) continue; // older than the CLI: not started by it
        // Only one about to be taken is checked to be a process (one more read): most are not taken.
        if (stat.ppid === this.#root || this.#known.has(stat.ppid) || (entry && mayCarryTag(stat) && reads.tagsOf(stat).includes(entry))) {
          if (isProcess(stat.pid)) this.adopt(stat);
        } else if (host && (stat.sid === host.sid || stat.pgid === host.pgid)) continue;
        else if (this.#inSeenSession(stat, readStat) && isProcess(stat.pid)) this.#known.set(stat.pid, stat.start);
      }
    });
  }

  /** {@link refreshDeepTree}, or where the kernel has no children lists the full deep {@link refresh}. */
  refreshDeep(): void {
    if (!this.refreshDeepTree()) this.refresh(undefined, true);
  }

  /**
   * Sends `signal` to every remembered descendant that is still the same process, and to its
   * process group when it leads one (what it started since the last scan is in that group).
   * Synchronous; never throws. @returns how many were signalled.
   */
  signalAll(signal: NodeJS.Signals): number {
    let sent = 0;
    for (const [pid, start] of this.#known) {
      const stat = readStat(pid);
      if (stat?.start !== start) {
        this.#known.delete(pid);
        continue;
      }
      try {
        if (stat.pgid === pid) process.kill(-pid, signal);
        else process.kill(pid, signal);
        sent++;
      } catch {
        try {
          process.kill(pid, signal);
          sent++;
        } catch {
          this.#known.delete(pid);
        }
      }
    }
    return sent;
  }
}

/** Trackers of live CLIs, scanned together on one timer that never keeps Node alive. */
const KEY = Symbol.for("adaptor.driver.process.descendantTrackers");
interface Poller {
  /** Trackers of CLIs still running: scanned on the timer. */
  readonly trackers: Set<DescendantTracker>;
  /** Trackers whose descendants may still be alive (from spawn until they were ended). */
  readonly owned: Set<DescendantTracker>;
  timer: NodeJS.Timeout | undefined;
  /**
   * The last pid handed out when the last scan of every process started, and when (`performance.now()`,
   * ms): a poll within {@link WINDOW_MAX_AGE_MS} of it reads only the processes started since.
   */
  scanned?: { readonly lastPid: number; readonly at: number } | undefined;
  /** Trackers watched since that scan. */
  watchedSince?: Set<DescendantTracker>;
  /** The CLI pids of {@link owned}, each with the number of trackers that have it (a pid may be reused). */
  roots?: Map<number, number>;
}
const poller: Poller = ((globalThis as { [KEY]?: Poller })[KEY] ??= { trackers: new Set(), owned: new Set(), timer: undefined });

/**
 * How long after a poll's scan the next may read only the processes started since (their pids, in
 * the window the kernel handed out since): long enough for a timer that fires late on a busy host,
 * far too short for the kernel to hand out every pid once more (the window would then be ambiguous).
 */
const WINDOW_MAX_AGE_MS = 4 * DESCENDANT_POLL_MS;

/**
 * Below this many files the tree walks would read, a poll walks the trees without first listing
 * `/proc` to compare (a few CLIs: the walks are cheap).
 */
const WALK_WITHOUT_COMPARING = 64;

/**
 * How a poll of `visits` processes (the CLIs and what they started) reads the trees: `"walk"`
 * (each tree through its children lists, about `filesPerVisit` files per process) or `"scan"` (the
 * stat of each of the host's `hostProcesses` processes, one file each, serving every tree). Both
 * find the same processes; the scan is chosen when it reads fewer files. `hostProcesses` is only
 * asked for when the walks would read at least {@link WALK_WITHOUT_COMPARING} files.
 */
export function pollStrategy(visits: number, filesPerVisit: number, hostProcesses: () => number): "walk" | "scan" {
  const walkFiles = visits * filesPerVisit;
  if (walkFiles < WALK_WITHOUT_COMPARING) return "walk";
  return hostProcesses() < walkFiles ? "scan" : "walk";
}

/**
 * Refreshes every watched tracker now: each walks its own tree through the children lists, or one
 * `/proc` scan serves them all where the kernel has no children lists or where the walks would read
 * more files than the scan ({@link pollStrategy}; with many CLIs at once, each of their threads'
 * children lists costs more than one stat per process on the host). Both find the same processes.
 * @param strategy - forces the walks or the one scan (where the kernel has children lists).
 */
export function refreshAllTrackers(strategy?: "walk" | "scan"): "walk" | "scan" | "window" {
  if (poller.trackers.size === 0) return "walk";
  let all: Map<number, ProcStat> | undefined;
  let served: "walk" | "scan" | "window" = "walk";
  if (hasChildrenFiles()) {
    let names: string[] | undefined;
    let visits = 0;
    for (const tracker of poller.trackers) visits += tracker.visits;
    const filesPerVisit = walked.visits === 0 ? 1 : walked.files / walked.visits;
    strategy ??= pollStrategy(visits, filesPerVisit, () => (names ??= procNames())?.length ?? Infinity);
    if (strategy === "scan") ({ all, served } = scanForPoll(names));
  }
  for (const tracker of poller.trackers) {
    if (all || !tracker.refreshTree()) {
      all ??= scanForPoll().all;
      served = served === "walk" ? "scan" : served;
      tracker.refresh(all);
    }
  }
  adoptTaggedOrphans();
  return served;
}

/**
 * Where the kernel has children lists: hands each watched tracker the processes carrying its tag
 * among those an orphan is handed to (children of this process and of its ancestors, as
 * {@link DescendantTracker.refreshDeepTree} reads them), each orphan's environment read once. A
 * job whose shell exited is then seen while it still carries the tag, with the session and group
 * it is in, even when it clears its environment and forks before the CLI ends.
 */
function adoptTaggedOrphans(): void {
  if (poller.trackers.size === 0 || !hasChildrenFiles()) return;
  let oldestRoot = Infinity;
  const byTag = new Map<string, DescendantTracker>();
  for (const tracker of poller.trackers) {
    const entry = tracker.tagEntry;
    if (!entry) continue;
    byTag.set(entry.toString("latin1"), tracker);
    oldestRoot = Math.min(oldestRoot, Number.isNaN(tracker.rootStart) ? -Infinity : tracker.rootStart);
  }
  if (byTag.size === 0) return;
  lastAdoption = { at: performance.now(), trackers: new WeakSet(poller.trackers) };
  for (const stat of readOrphanCandidates()) {
    if (Number(stat.start) < oldestRoot) continue; // older than every CLI: carries no tag of theirs
    for (const tag of candidateTags(stat)) {
      const tracker = byTag.get(tag);
      if (tracker && !tracker.knows(stat.pid) && Number(stat.start) >= tracker.rootStart) tracker.adopt(stat);
    }
  }
}

/**
 * When {@link adoptTaggedOrphans} last read where orphans are handed (`performance.now()`, ms), and
 * the trackers it served (those watched then).
 */
let lastAdoption: { readonly at: number; readonly trackers: WeakSet<DescendantTracker> } | undefined;

/**
 * How old a read by {@link adoptTaggedOrphans} may be for {@link readOrphansAhead} to stand on it
 * instead of reading again, ms: half the poll's period, so a CLI told to exit has had its tagged
 * orphans looked for at most that long before, where the poll alone leaves up to a whole period.
 */
export const AHEAD_FRESH_MS = DESCENDANT_POLL_MS / 2;

/** How many times {@link readOrphansAhead} read where orphans are handed (for tests). */
export const aheadReads = { count: 0 };

/**
 * Reads where orphans are handed now, and the tag of each candidate as young as a watched CLI,
 * adopting the tagged ones ({@link adoptTaggedOrphans}): for a CLI told to exit (its stdin closed),
 * while it shuts down. The deep refresh at its exit then takes what did not change from this read
 * (the stat of a candidate whose pid was not handed out since, the tag of one already read) and
 * reads the rest. When such a read that served `tracker` was made less than {@link AHEAD_FRESH_MS}
 * before (a poll, or another CLI's exit: with many CLIs ending at once, each reading this
 * process's children list, which holds them all, was a read per CLI of every CLI), that read
 * stands and none is made. Never throws.
 */
export function readOrphansAhead(tracker?: DescendantTracker): void {
  const recent = lastAdoption;
  if (tracker && recent && recent.trackers.has(tracker) && performance.now() - recent.at < AHEAD_FRESH_MS) return;
  aheadReads.count++;
  adoptTaggedOrphans();
}

/**
 * The `ADAPTOR_PROCESS_TAG=<value>` entries of `pid`'s initial environment (usually none or one);
 * undefined when it reads empty (in the middle of an `execve`, see {@link processEnvEntry}).
 */
function tagEntriesOf(pid: number): string[] | undefined {
  environRead?.(pid);
  const environ = readProcFile(`${PROC}/${pid}/environ`);
  if (!environ) return [];
  if (environ.length === 0) return undefined;
  const name = `${PROCESS_TAG_VAR}=`;
  const found: string[] = [];
  for (let at = environ.indexOf(name, 0, "latin1"); at !== -1; at = environ.indexOf(name, at + 1, "latin1")) {
    if (at !== 0 && environ[at - 1] !== 0) continue;
    const end = environ.indexOf(0, at);
    found.push(environ.toString("latin1", at, end === -1 ? environ.length : end));
  }
  return found;
}

/**
 * The tag entries of the orphan candidates whose environment was read, by pid, with their start
 * time: kept for as long as the pid stays a candidate (each read of where orphans are handed keeps
 * those of the candidates it found), so a candidate's environment is read once.
 */
let orphanTags = new Map<number, { readonly start: string; readonly tags: readonly string[] }>();

/**
 * The {@link PROCESS_TAG_VAR} entries of orphan candidate `stat`'s environment, as read the first
 * time that process (the same pid and start time) was a candidate. Its environment is that of its
 * start (or its last `exec`): one read as tagged was started by a tagged process, whatever it
 * drops later (it is then adopted on that read); one read as untagged got no tag from whoever
 * started it, and is caught, if it is a CLI's, by the session or group it is in. One whose
 * environment reads empty (mid-`execve`) is not remembered: it is read again next time.
 */
function candidateTags(stat: ProcStat): readonly string[] {
  const known = orphanTags.get(stat.pid);
  if (known?.start === stat.start) return known.tags;
  const tags = tagEntriesOf(stat.pid);
  if (tags === undefined) return []; // read again next time: an environment in the making
  orphanTags.set(stat.pid, { start: stat.start, tags });
  return tags;
}

/**
 * The processes a poll's {@link DescendantTracker.refresh} of every tracker needs. Every process
 * when no scan ran within {@link WINDOW_MAX_AGE_MS} (or the last pid handed out cannot be read);
 * else only those started since that scan (`/proc` entries whose pid is in the window handed out
 * since) and every remembered descendant: a process joins a CLI's tree only when it starts (a
 * process that is moved leaves the tree, to an ancestor of it), and what was in the tree at the
 * scan before is remembered, so the same processes are found as with every process read.
 * (`entries`: the entries of `/proc`, when already read.)
 */
function scanForPoll(entries?: string[]): { all: Map<number, ProcStat>; served: "scan" | "window" } {
  const last = lastPid();
  const at = performance.now();
  const previous = poller.scanned;
  const watched = poller.watchedSince;
  poller.scanned = last === undefined ? undefined : { lastPid: last, at };
  poller.watchedSince = new Set();
  const window = last === undefined || previous === undefined ? undefined : { after: previous.lastPid, last };
  // A CLI watched since the last scan that did not start since (a tracker made for an older
  // process) may have older descendants, never read: every process then.
  const complete = window !== undefined && [...(watched ?? [])].every((tracker) => inWindow(tracker.root, window));
  if (!window || !complete || at - (previous?.at ?? 0) > WINDOW_MAX_AGE_MS) return { all: scan(entries), served: "scan" };
  const all = scan(entries ?? procNames(), window);
  for (const tracker of poller.trackers) {
    for (const pid of tracker.pids) {
      if (all.has(pid)) continue;
      const stat = readStat(pid);
      if (stat) all.set(pid, stat);
    }
  }
  return { all, served: "window" };
}

/**
 * The CLI pids of the trackers this host owns (those {@link watchDescendants} took and
 * {@link releaseDescendants} did not release yet), kept up to date by both.
 */
function ownedRoots(): Map<number, number> {
  if (poller.roots) return poller.roots;
  // Made once from the trackers owned so far (a copy of this module may have added some).
  const roots = new Map<number, number>();
  for (const tracker of poller.owned) {
    const root = (tracker as { root?: unknown }).root;
    if (typeof root === "number") roots.set(root, (roots.get(root) ?? 0) + 1);
  }
  return (poller.roots = roots);
}

/** The CLI pids a deep walk skips as other CLIs of this host (those of the owned trackers), ascending. */
export function ownedCliPids(): number[] {
  return [...ownedRoots().keys()].sort((a, b) => a - b);
}

/** How many times {@link orphanCandidates} read where orphans are handed (for tests). */
export const orphanReads = { count: 0 };

/**
 * The processes an orphan of a CLI's tree can be, each with its stat: the kernel gives an orphan
 * to its nearest living ancestor that reaps orphans, else to init, and a CLI's ancestors are this
 * process and its own, so these are the children of this process and of each of its ancestors,
 * read from the main thread's list of each (where orphans are handed while it lives; where the
 * main thread is gone, every thread's list). Left out: the CLIs this host runs (each carries its
 * own tag: with many CLIs at once, reading each one's stat and environment for every deep walk of
 * every other was most of the work) and the ancestors themselves (older than any CLI).
 */
function orphanCandidates(): ProcStat[] {
  orphanReads.count++;
  return readOrphanCandidates();
}

/**
 * The candidates the last {@link readOrphanCandidates} found, by pid, the last pid handed out
 * before it read them, and when (`performance.now()`, ms).
 */
let lastCandidates: { readonly lastPid: number; readonly at: number; readonly stats: Map<number, ProcStat | null> } | undefined;

/** Told the pid of each candidate whose stat {@link readOrphanCandidates} reads (not taken from the read before); none by default. */
let candidateStatRead: ((pid: number) => void) | undefined;

/**
 * Has `observer` told the pid of every orphan candidate whose stat is read from now on, not taken
 * from the read before (for tests); `undefined` stops it.
 */
export function observeCandidateStatReads(observer: ((pid: number) => void) | undefined): void {
  candidateStatRead = observer;
}

/**
 * {@link orphanCandidates}, not counted in {@link orphanReads} (the poll's own read). The stat of a
 * candidate the last read found is not read again when its pid was not handed out since that read
 * (within {@link WINDOW_MAX_AGE_MS} of it; see {@link PidWindow}): it is the same process, with the
 * same start time, and its session and group are those it was seen in then (a tracker that adopts
 * it notes them, and its next walk of the tree notes those it is in by then); one that was a zombie
 * then is one still, or reaped, and is left out unread. Ancestors hold the same few children for
 * the CLI's life, and pid 1 every orphan of the host: their stat would otherwise be read on every
 * poll.
 */
function readOrphanCandidates(): ProcStat[] {
  const otherCLIs = ownedRoots();
  const found: ProcStat[] = [];
  const last = lastPid();
  const at = performance.now();
  const previous = lastCandidates;
  const window =
    previous === undefined || last === undefined || at - previous.at > WINDOW_MAX_AGE_MS ? undefined : { after: previous.lastPid, last };
  const stats = new Map<number, ProcStat | null>();
  lastCandidates = last === undefined ? undefined : { lastPid: last, at, stats };
  const tags = new Map<number, { readonly start: string; readonly tags: readonly string[] }>();
  // The holder the walk came up from: a child of the next one, this process or an ancestor,
  // older than any CLI, so its stat is not read again.
  let below: number | undefined;
  for (let holder: number | undefined = process.pid; holder !== undefined && holder > 0;) {
    // This process is running and knows its parent: its own stat is not read.
    const self: boolean = holder === process.pid;
    const holderStat: ProcStat | undefined = self ? undefined : readStat(holder);
    // The kernel hands an orphan to the first live thread of its new parent: the main thread
    // while that one lives (the process's stat is then not a zombie's), so only its list can
    // hold one; where the main thread is gone, every thread's list is read.
    const listed = self || holderStat ? mainThreadChildrenOf(holder) : childrenOf(holder);
    for (const pid of listed ?? []) {
      if (pid === below || otherCLIs.has(pid)) continue;
      // null: a zombie when read, and its pid not handed out since: still one, or reaped.
      let stat = window && !inWindow(pid, window) ? previous?.stats.get(pid) : undefined;
      if (stat === undefined) {
        candidateStatRead?.(pid);
        stat = readStat(pid) ?? null;
      }
      stats.set(pid, stat);
      if (!stat) continue;
      found.push(stat);
      const read = orphanTags.get(pid);
      if (read?.start === stat.start) tags.set(pid, read);
    }
    below = holder;
    holder = self ? process.ppid : holderStat?.ppid;
  }
  orphanTags = tags;
  return found;
}

/**
 * The processes a member of a session or process group that a CLI's process created can be, once
 * it is not in the CLI's tree: those among `candidates` (the children of this process and of its
 * ancestors, where the kernel hands orphans: {@link orphanCandidates}) started at or after `since`
 * (the CLI's start, clock ticks since boot), and every process below them, through the children
 * lists. A process enters only a session or group it creates or one of its parent's, so every
 * member was started, directly or not, by the CLI's processes: it is in the tree, or it left it
 * when an ancestor of it ended, and was then handed, with what it started, to this process or an
 * ancestor of it (the nearest that reaps orphans), each process on the way down from there as
 * young as the CLI or younger. Every process in `/proc` when `since` is unknown (NaN).
 */
function youngSubtrees(candidates: readonly ProcStat[], since: number): Map<number, ProcStat> {
  if (Number.isNaN(since)) return scan();
  const found = new Map<number, ProcStat>();
  const queue: number[] = [];
  for (const stat of candidates) {
    if (Number(stat.start) < since || found.has(stat.pid)) continue;
    found.set(stat.pid, stat);
    queue.push(stat.pid);
  }
  while (queue.length > 0) {
    const parent = queue.pop() as number;
    for (const pid of childrenOf(parent) ?? []) {
      if (found.has(pid)) continue;
      const stat = readStat(pid);
      if (!stat || stat.ppid !== parent) continue; // ended, or moved, since its parent's list was read
      found.set(pid, stat);
      queue.push(pid);
    }
  }
  return found;
}

/**
 * This process and its ancestors up to the first process (whose parent is 0), as read the first
 * time: a process only ever loses ancestors (an orphan is handed to one of its own ancestors), so
 * the set holds every ancestor it has later.
 */
let ancestors: Set<number> | undefined;

/** This process's pid and its ancestors' ({@link ancestors}); undefined when one of them could not be read. */
function hostAncestors(): Set<number> | undefined {
  if (ancestors) return ancestors;
  const found = new Set<number>([process.pid]);
  for (let pid: number | undefined = process.ppid; pid !== 0; pid = readStat(pid)?.ppid) {
    if (pid === undefined || found.has(pid)) return undefined;
    found.add(pid);
  }
  return (ancestors = found);
}

/** The strategy {@link deepBatchTree} takes instead of weighing the files (tests); undefined: weighed. */
let forcedDeepBatchStrategy: "walk" | "scan" | undefined;

/** Has every batch of deep refreshes find the trees by `strategy` from now on (for tests); `undefined`: weighed again. */
export function forceDeepBatchStrategy(strategy: "walk" | "scan" | undefined): void {
  forcedDeepBatchStrategy = strategy;
}

/**
 * How a batch of deep refreshes ({@link refreshDeepSoon}) finds the trees of `trackers`: each tree
 * through its children lists (undefined), or in one read of the stat of every process on the host
 * serving them all (that read), when that reads fewer files ({@link pollStrategy}). With many CLIs ending
 * their turns at once (each turn's end asks for one), each walk reads the children list of every
 * thread of its CLI, where the scan reads one file per process. A CLI that exited (no longer
 * watched) is not counted: its walk stops at its own pid, gone.
 */
function deepBatchTree(trackers: Iterable<DescendantTracker>): Map<number, ProcStat> | undefined {
  let names: string[] | undefined;
  let strategy = forcedDeepBatchStrategy;
  if (!strategy) {
    let visits = 0;
    for (const tracker of trackers) visits += poller.trackers.has(tracker) ? tracker.visits : tracker.visits - 1;
    const filesPerVisit = walked.visits === 0 ? 1 : walked.files / walked.visits;
    strategy = pollStrategy(visits, filesPerVisit, () => (names ??= procNames())?.length ?? Infinity);
  }
  return strategy === "scan" ? scan(names) : undefined;
}

/**
 * Deep refreshes asked for in the current turn of the event loop, served together after it, each
 * with the last pid its catch-up starts from (undefined: none).
 */
let pendingDeep: { readonly trackers: Map<DescendantTracker, number | undefined>; readonly done: Promise<void> } | undefined;

/**
 * {@link DescendantTracker.refreshDeep} of `tracker`, made right after the current turn of the
 * event loop together with every other asked for in that turn: one read of where orphans are
 * handed ({@link orphanCandidates}: this process's children list holds every CLI it runs) serves
 * them all, and is made after each of them was asked for, so each finds what its own refresh made
 * then would find. Where the kernel has no children lists, one full scan serves them all. With
 * `catchUpSince` (the {@link lastPid} read before this was asked for), each refresh is then caught
 * up ({@link DescendantTracker.catchUp}) once all were made, the catch-ups sharing their reads
 * ({@link CatchUpReads}); asked twice in one turn for one tracker, the catch-up starts from the
 * first pid given. Never rejects.
 */
export function refreshDeepSoon(tracker: DescendantTracker, catchUpSince?: number): Promise<void> {
  if (pendingDeep) {
    const { trackers } = pendingDeep;
    if (trackers.get(tracker) === undefined) trackers.set(tracker, catchUpSince);
    return pendingDeep.done;
  }
  const trackers = new Map([[tracker, catchUpSince]]);
  const done = new Promise<void>((resolve) => {
    setImmediate(() => {
      pendingDeep = undefined;
      let candidates: ProcStat[] | undefined;
      let all: Map<number, ProcStat> | undefined;
      let members: Map<number, ProcStat> | undefined;
      // One walk below the candidates serves every tracker: from those younger than the oldest CLI.
      const oldest = Math.min(...[...trackers.keys()].map((each) => each.rootStart));
      // Their walks, or one read of every process on the host when that reads fewer files.
      const tree = hasChildrenFiles() ? deepBatchTree(trackers.keys()) : undefined;
      for (const each of trackers.keys()) {
        if (hasChildrenFiles()) {
          const read = (candidates ??= orphanCandidates());
          each.refreshDeepTree(read, () => (members ??= youngSubtrees(read, oldest)), tree);
        } else each.refresh((all ??= scan()), true);
      }
      const reads = new CatchUpReads();
      for (const [each, since] of trackers) if (since !== undefined) each.catchUp(since, reads);
      resolve();
    });
  });
  pendingDeep = { trackers, done };
  return done;
}

/** Starts polling `tracker` (while its CLI lives) and owns it until {@link releaseDescendants}. */
export function watchDescendants(tracker: DescendantTracker): void {
  if (!poller.owned.has(tracker)) {
    const roots = ownedRoots();
    roots.set(tracker.root, (roots.get(tracker.root) ?? 0) + 1);
  }
  poller.trackers.add(tracker);
  poller.owned.add(tracker);
  poller.watchedSince?.add(tracker);
  if (poller.timer === undefined && process.platform === "linux") {
    poller.timer = setInterval(refreshAllTrackers, DESCENDANT_POLL_MS);
    poller.timer.unref();
  }
}

/** Stops polling `tracker` (its CLI exited); the last one stops the timer. */
export function unwatchDescendants(tracker: DescendantTracker): void {
  poller.trackers.delete(tracker);
  if (poller.trackers.size === 0 && poller.timer !== undefined) {
    clearInterval(poller.timer);
    poller.timer = undefined;
    poller.scanned = undefined;
    poller.watchedSince = undefined;
  }
}

/** Forgets `tracker` once its descendants were ended. */
export function releaseDescendants(tracker: DescendantTracker): void {
  unwatchDescendants(tracker);
  if (!poller.owned.has(tracker)) return;
  const roots = ownedRoots();
  poller.owned.delete(tracker);
  const count = roots.get(tracker.root) ?? 0;
  if (count > 1) roots.set(tracker.root, count - 1);
  else roots.delete(tracker.root);
}

/** SIGKILLs the descendants of every CLI, synchronously, after a last scan: what the host-exit hook runs. */
export function killAllDescendants(): void {
  if (poller.owned.size === 0) return;
  const all = scan();
  for (const tracker of poller.owned) {
    tracker.refresh(all, true);
    tracker.signalAll("SIGKILL");
  }
}
