/** One printed line of a benchmark's results. */
export interface Figure {
  /** What was measured, e.g. `"sqlite: acquire+finalize+release"`. */
  readonly label: string;
  /** The figure, e.g. cycles per second. */
  readonly value: number;
  /** Unit of `value`, e.g. `"cycles/s"`. */
  readonly unit: string;
  /** Extra text for the same line: per-op time, a ratio to the run's baseline. */
  readonly note?: string;
}

/** A benchmark: one file under bench/src exports one of these; main.ts runs them in order. */
export interface Benchmark {
  /** Heading printed above the figures. */
  readonly name: string;
  /** Measures and returns the figures; prints nothing itself except progress notes on stderr. */
  run(): Promise<Figure[]>;
}

/** The outcome of {@link measureRate}. */
export interface Rate {
  /** Completed iterations in the timed window. */
  readonly iterations: number;
  /** Length of the timed window, ms. */
  readonly elapsedMs: number;
  /** Iterations per second. */
  readonly perSecond: number;
  /** Mean time of one iteration, µs. */
  readonly meanUs: number;
}

/**
 * Calls `step` back to back (awaiting each) for `warmupMs`, then for at least `durationMs` and at
 * least `minIterations` times, and reports the rate of the timed part.
 */
export async function measureRate(
  step: (i: number) => Promise<void>,
  { durationMs = 2_000, warmupMs = 300, minIterations = 20 }: { durationMs?: number; warmupMs?: number; minIterations?: number } = {},
): Promise<Rate> {
  let i = 0;
  const warmEnd = performance.now() + warmupMs;
  while (performance.now() < warmEnd) await step(i++);
  const start = performance.now();
  let iterations = 0;
  while (iterations < minIterations || performance.now() - start < durationMs) {
    await step(i++);
    iterations++;
  }
  const elapsedMs = performance.now() - start;
  return { iterations, elapsedMs, perSecond: (iterations * 1_000) / elapsedMs, meanUs: (elapsedMs * 1_000) / iterations };
}

/** Formats a number with thousands separators and `digits` decimals. */
export function fmt(value: number, digits = 0): string {
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
