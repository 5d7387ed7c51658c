import { procStatFields } from "@adaptor/errors/internal";

/** Options of {@link waitForCpuIdle}. */
export interface CpuIdleOptions {
  /** How long, in ms, the process must use no CPU to count as idle. Default 150. */
  readonly quietMs?: number;
  /** Gives up after this many ms, idle or not. Default 2000. */
  readonly maxMs?: number;
  /** Stops waiting (rejects with its reason) when aborted. */
  readonly signal?: AbortSignal;
}

/** How often the CPU time is sampled, ms. */
const POLL_MS = 50;

/** User + system clock ticks `pid` has run (all its threads), or undefined when `/proc` cannot tell. */
function cpuTicks(pid: number): number | undefined {
  const fields = procStatFields(pid);
  if (fields === undefined) return undefined;
  // utime and stime are the 14th and 15th fields.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks : undefined;
}

/**
 * Resolves once the process `pid` has used no CPU for `quietMs`, or after `maxMs`, whichever comes
 * first: a CLI that answered its handshake but still runs start-up work in the background is
 * waited for, so that work does not land in the first turn. Resolves at once where `/proc` cannot
 * tell (not Linux, the process is gone). Its timers end with it.
 *
 * @throws `signal.reason` when aborted.
 */
export async function waitForCpuIdle(pid: number, { quietMs = 150, maxMs = 2000, signal }: CpuIdleOptions = {}): Promise<void> {
  signal?.throwIfAborted();
  let last = cpuTicks(pid);
  if (last === undefined) return;
  const started = performance.now();
  let quietSince = started;
  while (performance.now() - started < maxMs) {
    await sleep(POLL_MS, signal);
    const ticks = cpuTicks(pid);
    if (ticks === undefined) return;
    const now = performance.now();
    if (ticks !== last) {
      last = ticks;
      quietSince = now;
    } else if (now - quietSince >= quietMs) {
      return;
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
