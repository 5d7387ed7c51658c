import { DriverError, ErrCode } from "@adaptor/errors";
import type { DriverSink } from "../../spi/driver.js";
import type { HookAsk } from "../../spi/hooks.js";

/** Default `stallTimeoutMs`: 600,000 ms (10 minutes) without output ends a run; no healthy CLI stays silent that long. */
export const DEFAULT_STALL_TIMEOUT_MS = 600_000;

/** What a {@link StallWatchdog} watches: anything that counts the bytes it produced (`CliProcess` does). */
export interface OutputCounter {
  /** Bytes produced so far; any change counts as output. */
  readonly outputBytes: number;
  /**
   * True while the reader holds the output back (it stopped reading because its consumer fell
   * behind): the process cannot write then, so its silence is not a stall. `CliProcess` sets it.
   */
  readonly outputHeld?: boolean;
}

/** Options of a {@link StallWatchdog}. */
export interface StallWatchdogOptions {
  /**
   * ms without output, not counting time spent waiting on the host's approval, after which the run
   * is stalled. `0` turns the watchdog off. Default {@link DEFAULT_STALL_TIMEOUT_MS}.
   */
  readonly timeoutMs?: number;
  /** Name used in the error, e.g. `"claude"`. */
  readonly device: string;
}

/**
 * Ends a run whose CLI stopped producing output: once the watched process wrote nothing on stdout
 * or stderr for `timeoutMs`, not counting time the run waits on a human (an approval asked through
 * {@link sink}, a host tool running while the sink's `hostBusy()` says so, or any {@link pause})
 * nor time its output is held back by the reader
 * ({@link OutputCounter.outputHeld}: a host reading slowly), {@link signal} aborts with a DriverError coded `TIMEOUT`
 * (op `"stall"`). A driver joins that signal with its run's signal (`AbortSignal.any`), so a stall
 * ends the run through its ordinary cancellation path and the verdict is the `TIMEOUT` error (or
 * `FORCE_KILLED` wrapping it when SIGTERM was not enough).
 *
 * It checks the output count a few times per `timeoutMs`, never early: a stall is declared only
 * after at least `timeoutMs` of silence (and at most a quarter more). The timer never keeps Node
 * alive; {@link close} stops it.
 *
 * @example
 * ```ts
 * using watchdog = new StallWatchdog(proc, { timeoutMs: config.stallTimeoutMs, device: "my-agent" });
 * const runSignal = AbortSignal.any([signal, watchdog.signal]);
 * await runTurn(watchdog.sink(sink), runSignal);
 * ```
 */
export class StallWatchdog implements Disposable {
  readonly #controller = new AbortController();
  readonly #timeoutMs: number;
  readonly #device: string;
  #source: OutputCounter;
  #bytes: number;
  #quietSince = performance.now();
  #paused = 0;
  /** The host's report of work the CLI waits on (a host tool running), taken from the sink. */
  #hostBusy: (() => boolean) | undefined;
  #timer: NodeJS.Timeout | undefined;

  /**
   * Starts watching `source` at once.
   * @throws RangeError when `timeoutMs` is negative or not a number (a config check refuses it first).
   */
  constructor(source: OutputCounter, options: StallWatchdogOptions) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
    if (!(timeoutMs >= 0)) throw new RangeError(`stall timeout must be a number of ms >= 0, got ${String(timeoutMs)}`);
    this.#timeoutMs = timeoutMs;
    this.#device = options.device;
    this.#source = source;
    this.#bytes = source.outputBytes;
    if (timeoutMs === 0) return;
    this.#timer = setInterval(() => this.#check(), Math.max(1, Math.floor(timeoutMs / 4)));
    this.#timer.unref();
  }

  /** Aborts with a DriverError `TIMEOUT` (op `"stall"`) when the run stalled; never aborts after {@link close}. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Watches another process from now on (e.g. the one a run took from a pool after the watchdog started); the clock restarts. */
  watch(source: OutputCounter): void {
    this.#source = source;
    this.#bytes = source.outputBytes;
    this.#quietSince = performance.now();
  }

  /**
   * Stops counting silence until the returned function is called (idempotent); the clock restarts
   * then. Pauses nest: silence counts again once every pause ended.
   */
  pause(): () => void {
    this.#paused += 1;
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      this.#paused -= 1;
      this.#quietSince = performance.now();
    };
  }

  /**
   * `sink` whose `requestApproval` and `hook` pause the watchdog until the host answered: time a
   * human or a host hook takes to decide is not a stall. The watchdog also does not count silence
   * while `sink.hostBusy()` is true (a host tool the CLI waits on is running). Everything else
   * (events, turn controls, the run's deny rules) passes through.
   */
  sink(sink: DriverSink): DriverSink {
    if (sink.hostBusy) this.#hostBusy = sink.hostBusy.bind(sink);
    return {
      emit: (event) => sink.emit(event),
      requestApproval: async (ask) => {
        const resume = this.pause();
        try {
          return await sink.requestApproval(ask);
        } finally {
          resume();
        }
      },
      ...(sink.hook
        ? {
            hook: async (ask: HookAsk) => {
              const resume = this.pause();
              try {
                return await sink.hook!(ask);
              } finally {
                resume();
              }
            },
          }
        : {}),
      // The host's controls of the running turn pass through unchanged.
      ...(sink.attachControl ? { attachControl: sink.attachControl.bind(sink) } : {}),
      ...(sink.ready ? { ready: sink.ready.bind(sink) } : {}),
      ...(sink.partial ? { partial: sink.partial.bind(sink) } : {}),
      ...(sink.ruleDenies ? { ruleDenies: sink.ruleDenies.bind(sink) } : {}),
      ...(sink.hostBusy ? { hostBusy: sink.hostBusy.bind(sink) } : {}),
    };
  }

  /** Stops the timer; {@link signal} never aborts afterwards. Idempotent. */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #check(): void {
    const now = performance.now();
    const bytes = this.#source.outputBytes;
    if (bytes !== this.#bytes || this.#paused > 0 || this.#source.outputHeld === true || this.#hostBusy?.() === true) {
      this.#bytes = bytes;
      this.#quietSince = now;
      return;
    }
    if (now - this.#quietSince < this.#timeoutMs) return;
    this.close();
    this.#controller.abort(
      new DriverError({
        op: "stall",
        device: this.#device,
        code: ErrCode.Timeout,
        cause: `no output for ${Math.round(now - this.#quietSince)} ms (stallTimeoutMs ${this.#timeoutMs})`,
      }),
    );
  }
}

/**
 * Runs `work` with `signal` joined to a {@link StallWatchdog} on `source`: the signal `work` gets
 * also aborts with the stall's DriverError `TIMEOUT` (op `"stall"`) once `source` wrote nothing for
 * `options.timeoutMs`; the watchdog is closed when `work` settles. For a bounded step outside a run,
 * such as making a pre-warmed process ready.
 */
export async function withStallWatchdog<T>(
  source: OutputCounter,
  options: StallWatchdogOptions,
  signal: AbortSignal,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const watchdog = new StallWatchdog(source, options);
  try {
    return await work(AbortSignal.any([signal, watchdog.signal]));
  } finally {
    watchdog.close();
  }
}
