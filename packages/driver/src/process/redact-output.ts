import { redactCutAtEnd, redactCutAtStart, redactValues } from "@adaptor/errors/internal";

/**
 * `text`, a window of a CLI's output, with each of `values` replaced by `[redacted]` in every form
 * `redactValues` finds; when the window is the tail of a longer output (`cut`), also the end of a
 * value the cut fell inside (its last 8 characters or more at the window's start). Cost: linear in
 * the text for each value.
 */
export function redactWindowText(text: string, values: readonly string[], cut: boolean): string {
  if (values.length === 0) return text;
  return redactValues(cut ? redactCutAtStart(text, values) : text, values);
}

/**
 * Longest unfinished line a {@link StreamRedactor} holds back by default, in UTF-16 code units:
 * 16,384 characters.
 */
export const MAX_HELD_LINE_CHARS = 16 * 1024;

/**
 * Milliseconds a CLI's unfinished stderr line is held back at most, waiting for its line end,
 * before it is handed on ({@link StreamRedactor.flush}): a prompt without a line end still shows.
 */
export const HELD_LINE_FLUSH_MS = 250;

/**
 * Redacts a text that arrives in pieces (a CLI's stderr, chunk by chunk), so that a value the
 * pieces cut is still found: whole lines are handed on at once, redacted; the unfinished last line
 * waits for the rest of it. A line longer than the bound (`maxHeldChars`, default
 * {@link MAX_HELD_LINE_CHARS}) is handed on in pieces of up to that size (memory stays within it);
 * a value cut there has its first and last 8 characters or more replaced on each side of the cut
 * (see `redactCutAtEnd`, `redactCutAtStart`). {@link flush} hands the unfinished line on the same
 * way before its end (a CLI's prompt); {@link end} hands on what is left.
 */
export class StreamRedactor {
  readonly #values: readonly string[];
  readonly #maxHeld: number;
  /** The unfinished last line, not handed on yet. */
  #held = "";
  /** Whether the last text handed on ended inside a line (the bound forced it out). */
  #cut = false;

  /**
   * @param values what is replaced by `[redacted]`, in every form `redactValues` finds.
   * @param maxHeldChars longest unfinished line held back, in UTF-16 code units; default {@link MAX_HELD_LINE_CHARS}.
   */
  constructor(values: readonly string[], maxHeldChars = MAX_HELD_LINE_CHARS) {
    this.#values = values;
    this.#maxHeld = maxHeldChars;
  }

  /** What can be handed on now of the text so far, redacted (possibly `""`): every finished line. */
  push(text: string): string {
    const all = this.#held + text;
    const lineEnd = all.lastIndexOf("\n") + 1;
    if (all.length - lineEnd <= this.#maxHeld) {
      this.#held = all.slice(lineEnd);
      return this.#redact(all.slice(0, lineEnd), false);
    }
    this.#held = "";
    return this.#redact(all, true);
  }

  /** Whether an unfinished line is held back ({@link flush} would hand it on). */
  get holding(): boolean {
    return this.#held !== "";
  }

  /**
   * The unfinished line held so far, handed on now (a CLI's prompt waits for its answer, not for
   * its line end), redacted as a line the bound cut: a value it ends inside loses its first 8
   * characters or more, and the rest of the line its last (see `redactCutAtEnd`, `redactCutAtStart`).
   */
  flush(): string {
    const held = this.#held;
    this.#held = "";
    return this.#redact(held, true);
  }

  /** What is left (the unfinished last line), redacted; the redactor is then empty. */
  end(): string {
    const held = this.#held;
    this.#held = "";
    return this.#redact(held, false);
  }

  #redact(text: string, cutAtEnd: boolean): string {
    if (text === "") return "";
    let out = this.#cut ? redactCutAtStart(text, this.#values) : text;
    if (cutAtEnd) out = redactCutAtEnd(out, this.#values);
    this.#cut = cutAtEnd;
    return redactValues(out, this.#values);
  }
}
