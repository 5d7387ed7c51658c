import type { DriverSink } from "../../spi/driver.js";
import { forceKilledError } from "../../process/force-killed-error.js";
import type { CliProcess } from "../../process/cli-process.js";
import type { ExitInfo } from "../../process/exit-info.js";
import { exitOrTerminate, InterruptEscalation } from "../cancel/escalation.js";
import { StallWatchdog } from "../stall/stall-watchdog.js";

/** How {@link oneShotTurn} runs one turn of a process that serves only it. */
export interface OneShotTurnOptions {
  /** The driver type, for errors (`[TIMEOUT] stall: <device>`, `[FORCE_KILLED] kill: <device>`). */
  readonly device: string;
  /** ms without output before the run is ended with a `TIMEOUT` verdict; see `StallWatchdog`. */
  readonly stallTimeoutMs: number | undefined;
  /** ms the CLI has to exit after its terminal line (or after SIGTERM) before it is killed. */
  readonly graceMs: number;
  /**
   * Writes the turn's input and returns the handler of its stdout JSON objects, given the run's
   * sink (time waiting on the host's approval through it does not count as silence). The handler
   * returns true at the turn's terminal line.
   */
  begin(sink: DriverSink): (value: Record<string, unknown>, text: string) => boolean;
  /** Called once the lines end (terminal line, end of output or abort), e.g. to close stdin. */
  end?(): void;
}

/**
 * Runs one turn on a process that serves only it (a print-mode CLI): the input, the stdout lines
 * until the terminal one (a line that is not a JSON object is a `process` `stdout` event), the
 * exit. An abort of `signal`, or a stall, ends the process (SIGTERM, then SIGKILL).
 * @returns how the process exited.
 * @throws the abort reason (a `DriverError` `TIMEOUT` for a stall), or `FORCE_KILLED` wrapping it
 * when SIGKILL was needed.
 */
export async function oneShotTurn(proc: CliProcess, sink: DriverSink, signal: AbortSignal, options: OneShotTurnOptions): Promise<ExitInfo> {
  const watchdog = new StallWatchdog(proc, { timeoutMs: options.stallTimeoutMs, device: options.device });
  const runSignal = AbortSignal.any([signal, watchdog.signal]);
  const cancel = new InterruptEscalation(proc, { graceMs: options.graceMs, interrupt: () => false });
  const onAbort = (): void => cancel.start();
  runSignal.addEventListener("abort", onAbort, { once: true });
  if (runSignal.aborted) cancel.start();
  const guarded = watchdog.sink(sink);
  try {
    const accept = options.begin(guarded);
    for await (const line of proc.lines()) {
      if (line.kind === "json" && typeof line.value === "object" && line.value !== null && !Array.isArray(line.value)) {
        if (accept(line.value as Record<string, unknown>, line.text)) break;
      } else {
        guarded.emit({ type: "process", kind: "stdout", text: line.text });
      }
    }
  } finally {
    watchdog.close();
    runSignal.removeEventListener("abort", onAbort);
    options.end?.();
  }
  await cancel.settled();
  const exit = await exitOrTerminate(proc, options.graceMs);
  if (runSignal.aborted) throw exit.forceKilled ? forceKilledError(options.device, runSignal.reason) : runSignal.reason;
  return exit;
}
