import type { DriverSink } from "../../spi/driver.js";
import { beforeNextLine } from "./before-next-line.js";

/**
 * A driver's stdout loop over `CliProcess.textBatches()`: hands every line, in order, to
 * `readLine`, awaiting {@link beforeNextLine} between two lines (and before the first line of a
 * batch when the line before was the frequent one), until stdout ends.
 *
 * @param batches - the CLI's stdout lines, a batch per decoded chunk (`CliProcess.textBatches()`).
 * @param sink - where the lines' events go (its `ready` paces the frequent line); undefined when there is none.
 * @param readLine - handles one line synchronously; returns true when it was the driver's frequent
 * line, read by its fast path (it emitted an event and settled nothing else).
 * @returns once stdout ended. A throw of `readLine` (or of the sink's `ready`) rejects with that
 * error, the batches' iterator returned first (as `for await` does); a rejection of the batches
 * rejects with theirs.
 */
export async function readTextBatches(
  batches: AsyncIterable<readonly string[]>,
  sink: DriverSink | undefined,
  readLine: (text: string) => boolean,
): Promise<void> {
  const iterator = batches[Symbol.asyncIterator]();
  let frequent = false;
  /** True while a batch is read: a throw then ends the batches early (a rejected `next` does not). */
  let reading = false;
  try {
    // A line is a slice of the decoded stdout chunk it came in, and a suspended async function
    // keeps every value in its frame alive, dead or not: the batch is let go before the wait for
    // the next, and a line is never held in this frame (read by the callee), so a run waiting for
    // more (an approval, the model) keeps no stdout chunk alive.
    for (;;) {
      let read: IteratorResult<readonly string[]> | undefined = await iterator.next();
      if (read.done === true) return;
      reading = true;
      let batch: readonly string[] | undefined = read.value;
      read = undefined;
      for (let i = 0; i < batch.length; i++) {
        if (i > 0 || frequent) {
          const wait = beforeNextLine(sink, frequent);
          if (wait !== undefined) await wait;
        }
        frequent = readLine(batch[i]!);
      }
      batch = undefined;
      reading = false;
    }
  } finally {
    // As `for await` ends early: the iterator's own failure to return does not hide the error.
    if (reading && iterator.return !== undefined) await iterator.return().catch(() => undefined);
  }
}
