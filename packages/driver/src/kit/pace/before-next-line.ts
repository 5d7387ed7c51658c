import type { DriverSink } from "../../spi/driver.js";

const ONE_TURN = Promise.resolve();

/**
 * What a driver's stdout loop awaits between two lines of a batch (`CliProcess.textBatches()`):
 * the host's loop takes the events in step, so a small `eventBuffer` is not overrun by a chunk's
 * hundreds of lines, and no new stdout is read in between (only microtasks run while it waits).
 *
 * @param sink - the sink the lines' events go to; undefined when there is none.
 * @param frequent - whether the line before was the driver's frequent line, read by its fast path
 * (it emitted an event and settled nothing else). Then the host says when to wait
 * ({@link DriverSink.ready}): the driver goes on at once while the host has room and waits only
 * when half its buffer is waiting. After any other line, or for a sink without `ready`, one
 * microtask turn: code awaiting what that line settled (a reply, a decision) runs before the
 * next line is read.
 * @returns what to await, or undefined to go on at once.
 */
export function beforeNextLine(sink: DriverSink | undefined, frequent: boolean): Promise<void> | undefined {
  return frequent && sink?.ready !== undefined ? sink.ready() : ONE_TURN;
}
