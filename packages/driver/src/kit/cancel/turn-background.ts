import type { DriverSink } from "../../spi/driver.js";
import type { CliProcess } from "../../process/cli-process.js";
import { endTurnLeftovers, type TurnLeftoverOptions } from "../../process/turn-leftovers.js";

/** The `lifecycle` notice message of {@link endTurnBackground}. */
export const BACKGROUND_ENDED_MESSAGE = "background processes of the turn ended";

/** The `lifecycle` notice message of {@link endTurnBackground} when something outlasted every round of signals. */
export const BACKGROUND_LEFT_MESSAGE = "background processes of the turn could not all be ended";

/**
 * At the end of a healthy turn whose CLI process stays up (parked for the thread's next turn) or
 * is about to be asked to exit: ends what the turn left running below it (`endTurnLeftovers` with
 * the `baseline` taken when the turn started), and tells `sink` with a `lifecycle` notice
 * ({@link BACKGROUND_ENDED_MESSAGE}, `data.pids`, `data.count`) when something had to be ended,
 * after a `lifecycle` notice {@link BACKGROUND_LEFT_MESSAGE} (`data.pids`: still found after the
 * last SIGKILL round) when something outlasted every round. Never throws.
 */
export async function endTurnBackground(
  proc: CliProcess,
  baseline: ReadonlySet<number> | undefined,
  sink: DriverSink,
  options: TurnLeftoverOptions,
): Promise<void> {
  const ended = await endTurnLeftovers(proc, baseline, {
    ...options,
    onGaveUp: (pids) => {
      options.onGaveUp?.(pids);
      sink.emit({ type: "notice", kind: "lifecycle", message: BACKGROUND_LEFT_MESSAGE, data: { pids, count: pids.length } });
    },
  });
  if (ended.length === 0) return;
  sink.emit({ type: "notice", kind: "lifecycle", message: BACKGROUND_ENDED_MESSAGE, data: { pids: ended, count: ended.length } });
}
