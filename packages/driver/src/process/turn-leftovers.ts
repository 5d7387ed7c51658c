import type { CliProcess } from "./cli-process.js";
import { processEnvHas, processGroupOf, signalProcess, threadGroupOf } from "./descendants.js";
import { endSweeping, sweepUntilGone } from "./sweep.js";

/**
 * Set to `1` in the environment of every stdio server (MCP server) a driver declares to its CLI:
 * such a process (and what it starts) belongs to the CLI's whole life, not to one turn, so
 * {@link endTurnLeftovers} leaves it alone.
 */
export const STDIO_SERVER_VAR = "ADAPTOR_STDIO_SERVER";

/** Options of {@link endTurnLeftovers}. */
export interface TurnLeftoverOptions {
  /** How long what the turn started may take to end by itself, in ms. */
  readonly settleMs: number;
  /** After SIGTERM, how long before SIGKILL, in ms. */
  readonly graceMs: number;
  /**
   * True when `proc` is asked to exit right after (a turn whose process serves no other): a first
   * listing that finds nothing is then final, as the process's own exit ends whatever is still
   * below it (`CliProcess.close()`; the verdict waits for it). Default false: nothing is taken as
   * gone before three listings in a row, 20 ms apart, found nothing (a process that stays up keeps
   * what a listing missed).
   */
  readonly exiting?: boolean | undefined;
  /**
   * Told the pids still found when the SIGKILL rounds ended (a job that outlasted every round);
   * not called when everything was ended.
   */
  readonly onGaveUp?: ((pids: number[]) => void) | undefined;
}

/**
 * What is running below `proc` now (its {@link CliProcess.listDescendants}); taken when a turn
 * starts on a process that outlives it, so {@link endTurnLeftovers} ends only what the turn started.
 * Undefined where descendants cannot be found (not Linux, or `proc` has no `listDescendants`).
 */
export async function descendantBaseline(proc: CliProcess): Promise<ReadonlySet<number> | undefined> {
  const live = await proc.listDescendants?.();
  return live === undefined ? undefined : new Set(live);
}

/**
 * Ends what a turn left running on a CLI process that stays up for the next turn (a background
 * command the agent started, however detached): every live descendant of `proc` that is not in
 * `baseline` and is not a stdio server ({@link STDIO_SERVER_VAR}); never `proc` itself or this
 * process, nor the process group of any of those (what the driver keeps), nor a thread. Waits up to
 * `settleMs` for them to end by themselves, then SIGTERM to each found (to its whole process group
 * when the group is not one of `proc`, this process, or a process that stays), round after round
 * for `graceMs` (a job that keeps changing its pid is signalled under each), then SIGKILL the same
 * way to what is still found, for at least 2 s; what is still found then is told to
 * `options.onGaveUp`. Once a leftover's process group was found (one not kept, as above), it is
 * stopped (SIGSTOP, then SIGCONT) while each later listing runs: a job that forks faster than a
 * listing reads `/proc` is still found, however slow the listing. Nothing is taken as gone before
 * three listings in a row, 20 ms apart, found nothing, unless `options.exiting` and the first
 * listing finds nothing. Never throws; the waits never keep Node alive.
 * @returns the pids it had to signal (empty when nothing was left, or without a baseline).
 */
export async function endTurnLeftovers(
  proc: CliProcess,
  baseline: ReadonlySet<number> | undefined,
  options: TurnLeftoverOptions,
): Promise<number[]> {
  if (!baseline) return [];
  const serverEntry = `${STDIO_SERVER_VAR}=1`;
  const servers = new Set<number>();
  // A leftover in a process group of its own making (it called setsid / setpgid) is handled as
  // that whole group from then on: stopped (SIGSTOP) while each later listing reads `/proc`, so a
  // job that forks faster than a listing reads cannot slip past it under a new pid, and signalled
  // whole, so one kill reaches the pid it forked since it was listed. Groups a process that stays
  // belongs to (checked again before every signal) are never touched.
  const groups = new Set<number>();
  // The group each pid of the last listing was in then (the pid may have forked and exited since).
  let listedIn = new Map<number, number>();
  const kept = (): Set<number | undefined> => new Set([process.pid, proc.pid, ...baseline, ...servers].map(processGroupOf));
  const noteGroups = (pids: readonly number[]): void => {
    let keep: Set<number | undefined> | undefined;
    listedIn = new Map();
    for (const pid of pids) {
      const group = processGroupOf(pid);
      if (group === undefined) continue;
      listedIn.set(pid, group);
      if (!groups.has(group) && !(keep ??= kept()).has(group)) groups.add(group);
    }
  };
  /** Sends `sig` to each group noted, forgetting those gone or kept. @returns the groups it reached. */
  const signalGroups = (sig: NodeJS.Signals): Set<number> => {
    const reached = new Set<number>();
    if (groups.size === 0) return reached;
    const keep = kept();
    for (const group of groups)
      if (keep.has(group)) groups.delete(group);
      else
        try {
          process.kill(-group, sig);
          reached.add(group);
        } catch {
          groups.delete(group); // gone
        }
    return reached;
  };
  const leftovers = async (): Promise<number[]> => {
    const stopped = signalGroups("SIGSTOP");
    try {
      const found = ((await proc.listDescendants?.()) ?? []).filter((pid) => {
        // The CLI itself and this process are never a turn's leftover, whatever a listing says; nor
        // is a thread (a signal sent to one reaches its whole process, the CLI's own included).
        if (pid === proc.pid || pid === process.pid || baseline.has(pid) || servers.has(pid)) return false;
        const group = threadGroupOf(pid);
        if (group !== undefined && group !== pid) return false; // (one gone since keeps the sweep looking)
        if (processEnvHas(pid, serverEntry)) {
          servers.add(pid);
          return false;
        }
        return true;
      });
      noteGroups(found);
      return found;
    } finally {
      // Each group stopped goes on, also one found kept meanwhile.
      for (const group of stopped)
        try {
          process.kill(-group, "SIGCONT");
        } catch {
          // gone
        }
    }
  };
  // A process about to exit: nothing found now is final (its exit ends what a listing missed).
  if (options.exiting && (await leftovers()).length === 0) return [];
  // Left alone while they end by themselves: nothing is signalled before `settleMs`.
  if (await sweepUntilGone(leftovers, () => undefined, Date.now() + options.settleMs)) return [];
  const signal = (pid: number, sig: NodeJS.Signals): boolean => {
    const group = listedIn.get(pid) ?? processGroupOf(pid);
    const reached = signalGroups(sig);
    return (group !== undefined && reached.has(group)) || signalProcess(pid, sig);
  };
  return endSweeping(leftovers, options.graceMs, signal, options.onGaveUp);
}
