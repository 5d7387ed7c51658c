import type { CliProcess } from "./cli-process.js";
import { processEnvHas, signalProcess } from "./descendants.js";

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
}

/**
 * What is running below `proc` now (its {@link CliProcess.liveDescendants}); taken when a turn
 * starts on a process that outlives it, so {@link endTurnLeftovers} ends only what the turn started.
 * Undefined where descendants cannot be found (not Linux).
 */
export function descendantBaseline(proc: CliProcess): ReadonlySet<number> | undefined {
  const live = proc.liveDescendants();
  return live === undefined ? undefined : new Set(live);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * Listings {@link sweepUntilGone} takes, {@link QUIET_INTERVAL_MS} apart, before it trusts that
 * nothing is left: one listing can miss a process that changes its pid (forks, the parent exits)
 * faster than the listing reads it.
 */
const QUIET_LISTINGS = 3;
/** Time between two listings of {@link sweepUntilGone}, in ms. */
const QUIET_INTERVAL_MS = 20;

/**
 * Lists what is left (`list`) and hands each listed pid to `signal`, round after round, until
 * {@link QUIET_LISTINGS} listings in a row find nothing or `untilMs` (a `Date.now()` deadline)
 * passed. Catches a job that changes its pid continuously: each round signals its current pid.
 * Never throws (as long as `list` and `signal` do not); the waits never keep Node alive.
 * @returns true when the last {@link QUIET_LISTINGS} listings found nothing.
 */
export async function sweepUntilGone(list: () => number[], signal: (pid: number) => void, untilMs: number): Promise<boolean> {
  for (let quiet = 0; ;) {
    const pids = list();
    quiet = pids.length === 0 ? quiet + 1 : 0;
    for (const pid of pids) signal(pid);
    if (quiet >= QUIET_LISTINGS) return true;
    if (Date.now() >= untilMs) return false;
    await sleep(pids.length === 0 ? QUIET_INTERVAL_MS : 50);
  }
}

/**
 * Ends what a turn left running on a CLI process that stays up for the next turn (a background
 * command the agent started, however detached): every live descendant of `proc` that is not in
 * `baseline` and is not a stdio server ({@link STDIO_SERVER_VAR}). Waits up to `settleMs` for them
 * to end by themselves, then SIGTERM (to the process group of those that lead one) to each found,
 * round after round for `graceMs` ({@link sweepUntilGone}: a job that keeps changing its pid is
 * signalled under each), then SIGKILL the same way to what is still found. Nothing is taken as gone
 * before {@link QUIET_LISTINGS} listings in a row found nothing. Never throws; the waits never keep
 * Node alive.
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
  const leftovers = (): number[] =>
    (proc.liveDescendants() ?? []).filter((pid) => {
      if (baseline.has(pid) || servers.has(pid)) return false;
      if (processEnvHas(pid, serverEntry)) {
        servers.add(pid);
        return false;
      }
      return true;
    });
  // Left alone while they end by themselves: nothing is signalled before `settleMs`.
  if (await sweepUntilGone(leftovers, () => undefined, Date.now() + options.settleMs)) return [];
  const signalled = new Set<number>();
  const term = (pid: number): void => {
    if (!signalled.has(pid) && signalProcess(pid, "SIGTERM")) signalled.add(pid);
  };
  if (!(await sweepUntilGone(leftovers, term, Date.now() + options.graceMs)))
    await sweepUntilGone(leftovers, (pid) => signalProcess(pid, "SIGKILL"), Date.now() + Math.max(options.graceMs, KILL_SWEEP_MS));
  return [...signalled];
}

/** Least time the SIGKILL rounds of {@link endTurnLeftovers} go on while something is still found, in ms. */
const KILL_SWEEP_MS = 2_000;
