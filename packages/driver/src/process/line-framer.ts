import { DriverError, ErrCode } from "@adaptor/errors";
import { DEFAULT_MAX_LINE_BYTES } from "./constants.js";

const LF = 0x0a;
const CR = 0x0d;
const OPEN_BRACE = 0x7b;
const BLANK = /^\s*$/;

/**
 * Line framing over raw bytes: the texts of complete lines, terminator (`\n` or `\r\n`) stripped,
 * blank lines (empty or whitespace only) skipped, each decoded as UTF-8 only once complete. What
 * {@link JsonLinesDecoder} parses; internal to the process module.
 *
 * The line limit is enforced while buffering: never more than `maxLineBytes + 1` bytes of an
 * incomplete line are held. A line over the limit fails with a {@link DriverError}
 * `{ op: "read", code: RESOURCE_EXHAUSTED }`; once failed the framer stays failed.
 */
export class LineFramer {
  readonly #maxLineBytes: number;
  readonly #device: string;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #failure: DriverError | undefined;

  /** @throws DriverError `INVALID` (op `"decode"`) when `maxLineBytes` is not a positive integer. */
  constructor(maxLineBytes: number = DEFAULT_MAX_LINE_BYTES, device = "stdout") {
    this.#device = device;
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new DriverError({
        op: "decode",
        device,
        code: ErrCode.Invalid,
        cause: `maxLineBytes must be a positive integer, got ${String(maxLineBytes)}`,
      });
    }
    this.#maxLineBytes = maxLineBytes;
  }

  /**
   * Feeds one chunk and returns the texts of the lines it completed, in order.
   *
   * @throws DriverError `RESOURCE_EXHAUSTED` when a line exceeds `maxLineBytes`. Lines completed before
   * the over-long one in the same chunk are returned first and the error is thrown by the next call
   * (`push(Buffer.alloc(0))` surfaces it at once); with none before it, this call throws.
   */
  push(chunk: Uint8Array): string[] {
    if (this.#failure) throw this.#failure;
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const out: string[] = [];
    try {
      const first = bytes.indexOf(LF);
      if (first === -1) {
        if (bytes.length > 0) this.#buffer(bytes);
        return out;
      }
      this.#completeLine(bytes.subarray(0, first), out);
      const last = bytes.lastIndexOf(LF);
      if (last > first) {
        // Complete lines between the first and the last LF. When their bytes together fit the limit,
        // no line among them can exceed it: decode them with one call (LF never occurs inside a
        // multi-byte UTF-8 sequence) and split the string. Otherwise check line by line.
        if (last - first - 1 <= this.#maxLineBytes) completeRegion(bytes.toString("utf8", first + 1, last), out);
        else {
          let start = first + 1;
          for (let nl = bytes.indexOf(LF, start); nl !== -1 && nl <= last; nl = bytes.indexOf(LF, start)) {
            this.#completeLine(bytes.subarray(start, nl), out);
            start = nl + 1;
          }
        }
      }
      if (last + 1 < bytes.length) this.#buffer(bytes.subarray(last + 1));
    } catch (err) {
      if (out.length === 0) throw err;
    }
    return out;
  }

  /**
   * Signals end of input: returns the unterminated last line, if any, and resets.
   *
   * @throws DriverError `RESOURCE_EXHAUSTED` when the framer failed or that last line is over the limit.
   */
  end(): string[] {
    if (this.#failure) throw this.#failure;
    const out: string[] = [];
    if (this.#pendingBytes > 0) this.#completeLine(Buffer.alloc(0), out);
    return out;
  }

  #buffer(rest: Buffer): void {
    const total = this.#pendingBytes + rest.length;
    // One byte of slack: a line of exactly maxLineBytes may still be followed by the `\r` of a CRLF.
    if (total > this.#maxLineBytes + 1 || (total === this.#maxLineBytes + 1 && rest[rest.length - 1] !== CR)) {
      this.#fail();
    }
    this.#pending.push(Buffer.from(rest)); // a copy: callers may reuse their chunk
    this.#pendingBytes = total;
  }

  #completeLine(tail: Buffer, out: string[]): void {
    const line = this.#pendingBytes === 0 ? tail : Buffer.concat([...this.#pending, tail], this.#pendingBytes + tail.length);
    this.#pending = [];
    this.#pendingBytes = 0;
    const length = line.length > 0 && line[line.length - 1] === CR ? line.length - 1 : line.length;
    if (length > this.#maxLineBytes) this.#fail();
    pushText(line.toString("utf8", 0, length), out);
  }

  #fail(): never {
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#failure = new DriverError({
      op: "read",
      device: this.#device,
      code: ErrCode.ResourceExhausted,
      cause: `line exceeds ${this.#maxLineBytes} bytes`,
    });
    throw this.#failure;
  }
}

/** `region`: complete lines joined by `\n`, each within the limit. */
function completeRegion(region: string, out: string[]): void {
  let from = 0;
  for (;;) {
    const nl = region.indexOf("\n", from);
    let end = nl === -1 ? region.length : nl;
    if (end > from && region.charCodeAt(end - 1) === CR) end--;
    if (end > from) pushText(region.slice(from, end), out);
    if (nl === -1) return;
    from = nl + 1;
  }
}

/** Appends the framed line `text` (terminator stripped) unless it is blank. */
function pushText(text: string, out: string[]): void {
  // Most lines are JSON objects: skip the blank-line test for them.
  if (text.charCodeAt(0) !== OPEN_BRACE && BLANK.test(text)) return;
  out.push(text);
}
