import type { CliProcess } from "./cli-process.js";
import { processEnvHas, processGroupOf, signalProcess } from "./descendants.js";
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
 * `baseline` and is not a stdio server ({@link STDIO_SERVER_VAR}). Waits up to `settleMs` for them
 * to end by themselves, then SIGTERM to each found (to its whole process group when the group is
 * not one of `proc`, this process, or a process that stays),
 * round after round for `graceMs` (a job that keeps changing its pid is signalled under each),
 * then SIGKILL the same way to what is still found. Nothing is taken as gone before three listings
 * in a row, 20 ms apart, found nothing, unless `options.exiting` and the first listing finds
 * nothing. Never throws; the waits never keep Node alive.
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
  const leftovers = async (): Promise<number[]> =>
    ((await proc.listDescendants?.()) ?? []).filter((pid) => {
      if (baseline.has(pid) || servers.has(pid)) return false;
      if (processEnvHas(pid, serverEntry)) {
        servers.add(pid);
        return false;
      }
      return true;
    });
  // A process about to exit: nothing found now is final (its exit ends what a listing missed).
  if (options.exiting && (await leftovers()).length === 0) return [];
  // Left alone while they end by themselves: nothing is signalled before `settleMs`.
  if (await sweepUntilGone(leftovers, () => undefined, Date.now() + options.settleMs)) return [];
  // A leftover in a process group of its own making (it called setsid / setpgid) is signalled as
  // that whole group, in every later round too: one kill reaches the pid it forked since it was
  // listed, which chasing pids misses on a loaded host. Groups a process that stays belongs to are
  // never signalled whole.
  const kept = (): Set<number | undefined> => new Set([process.pid, proc.pid, ...baseline, ...servers].map(processGroupOf));
  const groups = new Set<number>();
  const signal = (pid: number, sig: NodeJS.Signals): boolean => {
    const group = processGroupOf(pid);
    if (group !== undefined && !groups.has(group) && !kept().has(group)) groups.add(group);
    let sent = false;
    for (const known of groups)
      try {
        process.kill(-known, sig);
        sent ||= known === group;
      } catch {
        groups.delete(known); // gone
      }
    return sent || signalProcess(pid, sig);
  };
  return endSweeping(leftovers, options.graceMs, signal);
}
