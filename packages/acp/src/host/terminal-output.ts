/**
 * The last `limit` bytes of a terminal's output (stdout lines and stderr, in arrival order), as
 * ACP's `terminal/output` reports it: truncated from the start, at a character boundary.
 */
export class TerminalOutput {
  readonly #limit: number;
  #text = "";
  #truncated = false;

  /** @param limit - bytes kept (UTF-8). */
  constructor(limit: number) {
    this.#limit = limit;
  }

  push(text: string): void {
    this.#text += text;
    const bytes = Buffer.from(this.#text, "utf8");
    if (bytes.length <= this.#limit) return;
    this.#truncated = true;
    // Cut at the bound, then drop a character the cut split (decoded as U+FFFD at the start).
    this.#text = bytes
      .subarray(bytes.length - this.#limit)
      .toString("utf8")
      .replace(/^\uFFFD+/, "");
  }

  get text(): string {
    return this.#text;
  }

  get truncated(): boolean {
    return this.#truncated;
  }
}
