import { metrics, type Attributes, type Counter, type Histogram, type Meter } from "@opentelemetry/api";

/**
 * The fleet's OpenTelemetry instruments (meter `@adaptor/fleet`), all attributed with `queue`:
 *
 * - `adaptor.fleet.queue.depth` (observable gauge, runs): unfinished runs, read from PostgreSQL at
 *   each collection;
 * - `adaptor.fleet.run.wait` (histogram, ms): submission to the first attempt's start;
 * - `adaptor.fleet.run.duration` (histogram, ms): an attempt's start to the verdict it wrote, with
 *   `outcome` (the verdict's kind);
 * - `adaptor.fleet.attempts` (counter): attempts started, with `attempt` (1, 2, ...).
 *
 * No-ops until the host registers an OpenTelemetry SDK (or passes `meter`).
 */
export class FleetMetrics {
  readonly #attributes: Attributes;
  readonly #wait: Histogram;
  readonly #duration: Histogram;
  readonly #attempts: Counter;

  constructor(queue: string, depth: () => Promise<number>, meter: Meter = metrics.getMeter("@adaptor/fleet")) {
    this.#attributes = { queue };
    this.#wait = meter.createHistogram("adaptor.fleet.run.wait", { unit: "ms", description: "submission to the first attempt's start" });
    this.#duration = meter.createHistogram("adaptor.fleet.run.duration", { unit: "ms", description: "an attempt's start to its verdict" });
    this.#attempts = meter.createCounter("adaptor.fleet.attempts", { description: "attempts started" });
    const gauge = meter.createObservableGauge("adaptor.fleet.queue.depth", { unit: "{run}", description: "unfinished runs" });
    gauge.addCallback(async (result) => {
      try {
        result.observe(await depth(), this.#attributes);
      } catch {
        // The database is unreachable: no observation this time.
      }
    });
  }

  /** An attempt started, `waitMs` after submission when it is the first. */
  attemptStarted(attempt: number, waitMs: number | undefined): void {
    this.#attempts.add(1, { ...this.#attributes, attempt });
    if (waitMs !== undefined) this.#wait.record(waitMs, this.#attributes);
  }

  /** An attempt wrote the verdict `outcome` after `durationMs`. */
  settled(outcome: string, durationMs: number): void {
    this.#duration.record(durationMs, { ...this.#attributes, outcome });
  }
}
