import type { CliProcess, OutputLine } from "@adaptor/driver/process";

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };
const NO_LINES: readonly string[] = [];

/**
 * The claude process's stdout lines, unparsed, in the batches {@link CliProcess.textBatches} hands
 * over, taken one at a time: {@link take} gives the next line of the batch at hand without waiting
 * (the caller decides whether to parse it), {@link fill} waits for the next batch, and {@link next}
 * gives lines parsed as {@link CliProcess.lines} gives them. A line is read once, by whichever of
 * these takes it; what one reader leaves stays for the next, in order.
 */
export class StdoutLines {
  readonly #batches: AsyncIterator<readonly string[]>;
  /** The batch at hand, its taken lines cleared (the batch is this reader's: `textBatches()` hands each over once). */
  #batch: readonly (string | undefined)[] = NO_LINES;
  #index = 0;

  constructor(proc: CliProcess) {
    this.#batches = proc.textBatches()[Symbol.asyncIterator]();
  }

  /**
   * The next line of the batch at hand (its text, unparsed), or undefined when it is used up. A
   * taken line is cleared from the batch, and the batch is let go with its last line: a line is a
   * slice of the decoded stdout it came in, so lines held after they were taken would keep that
   * output alive (while the batch is read, and while the turn waits for an approval or the CLI).
   */
  take(): string | undefined {
    const batch = this.#batch;
    const index = this.#index;
    if (index >= batch.length) return undefined;
    const line = batch[index];
    if (index + 1 === batch.length) {
      this.#batch = NO_LINES;
      this.#index = 0;
    } else {
      (batch as (string | undefined)[])[index] = undefined;
      this.#index = index + 1;
    }
    return line;
  }

  /**
   * Waits for the next batch (call when {@link take} gave undefined); false once stdout ended.
   *
   * @throws DriverError `RESOURCE_EXHAUSTED` (op `"read"`) when a line exceeds the process's
   * `maxLineBytes`, after every line before it was handed over.
   */
  async fill(): Promise<boolean> {
    const next = await this.#batches.next();
    if (next.done === true) return false;
    this.#batch = next.value;
    this.#index = 0;
    return true;
  }

  /** Puts `lines` (taken earlier, in order) back ahead of the lines not yet taken. */
  unread(lines: readonly string[]): void {
    if (lines.length === 0) return;
    this.#batch = [...lines, ...this.#batch.slice(this.#index)];
    this.#index = 0;
  }

  /** The next line, parsed as `lines()` parses it (`json` with its value, or `text`); done once stdout ended. */
  async next(): Promise<IteratorResult<OutputLine, undefined>> {
    let text = this.take();
    while (text === undefined) {
      if (!(await this.fill())) return DONE;
      text = this.take();
    }
    return { done: false, value: parseLine(text) };
  }

  /** Stops reading: later lines are dropped (stdout keeps draining). */
  async return(): Promise<IteratorResult<OutputLine, undefined>> {
    this.#batch = NO_LINES;
    this.#index = 0;
    await this.#batches.return?.();
    return DONE;
  }
}

/** A framed line as `lines()` delivers it: `json` when it parses, else `text`. */
export function parseLine(text: string): OutputLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "text", text };
  }
  return { kind: "json", value, text };
}
