import { DriverError, ErrCode } from "@adaptor/errors";
import { DEFAULT_MAX_LINE_BYTES } from "./constants.js";
import type { OutputLine } from "./output-line.js";

const LF = 0x0a;
const CR = 0x0d;
const BLANK = /^\s*$/;

/** Options of {@link JsonLinesDecoder}. */
export interface JsonLinesDecoderOptions {
  /** Longest line in bytes, terminator (`\n` or `\r\n`) excluded. Default {@link DEFAULT_MAX_LINE_BYTES} (64 MiB). */
  maxLineBytes?: number;
  /** Name used in errors. Default `"stdout"`. */
  device?: string;
  /**
   * Parses one line (terminator stripped, not blank): must return what `JSON.parse(text)` returns
   * and throw where it throws (the line is then `kind: "text"`). Default `JSON.parse`. A driver
   * passes one with a fast path for the line its CLI writes most.
   */
  parse?: (text: string) => unknown;
}

/**
 * Pure JSON Lines framing over raw bytes, for any byte transport (a pipe, a socket, a file).
 *
 * Bytes are buffered per line and decoded as UTF-8 only once the line is complete, so a multi-byte
 * character or a line split across chunks decodes correctly. A trailing `\r` is stripped (CRLF),
 * blank lines (empty or whitespace only) are skipped, a line that parses as any JSON value is
 * `{ kind: "json" }`, anything else `{ kind: "text" }`.
 *
 * The line limit is enforced while buffering: the decoder never holds more than `maxLineBytes + 1`
 * bytes of an incomplete line. A line over the limit fails with a {@link DriverError}
 * `{ op: "read", code: RESOURCE_EXHAUSTED, cause: "line exceeds <n> bytes" }`; once failed the decoder
 * stays failed and every later `push()` / `end()` throws that same error.
 */
export class JsonLinesDecoder {
  readonly #maxLineBytes: number;
  readonly #device: string;
  readonly #parse: (text: string) => unknown;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #failure: DriverError | undefined;

  /**
   * @param opts.maxLineBytes - positive integer, bytes; default 64 MiB.
   * @param opts.device - name used in errors; default `"stdout"`.
   * @param opts.parse - the line parser; default `JSON.parse`.
   * @throws DriverError `INVALID` (op `"decode"`) when `maxLineBytes` is not a positive integer.
   */
  constructor(opts: JsonLinesDecoderOptions = {}) {
    this.#device = opts.device ?? "stdout";
    this.#parse = opts.parse ?? JSON.parse;
    const max = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new DriverError({
        op: "decode",
        device: this.#device,
        code: ErrCode.Invalid,
        cause: `maxLineBytes must be a positive integer, got ${String(max)}`,
      });
    }
    this.#maxLineBytes = max;
  }

  /**
   * Feeds one chunk and returns the lines it completed, in order.
   *
   * @throws DriverError `RESOURCE_EXHAUSTED` when a line exceeds `maxLineBytes`. Lines completed before
   * the over-long one in the same chunk are returned first and the error is thrown by the next call
   * (`push(Buffer.alloc(0))` surfaces it at once); with none before it, this call throws.
   */
  push(chunk: Uint8Array): OutputLine[] {
    this.#throwIfFailed();
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const out: OutputLine[] = [];
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
        if (last - first - 1 <= this.#maxLineBytes) this.#completeRegion(bytes.toString("utf8", first + 1, last), out);
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
   * Signals end of input: returns the unterminated last line, if any, and resets the decoder.
   *
   * @throws DriverError `RESOURCE_EXHAUSTED` when the decoder failed or that last line is over the limit.
   */
  end(): OutputLine[] {
    this.#throwIfFailed();
    const out: OutputLine[] = [];
    if (this.#pendingBytes > 0) this.#completeLine(Buffer.alloc(0), out);
    return out;
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure;
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

  #completeLine(tail: Buffer, out: OutputLine[]): void {
    const line = this.#pendingBytes === 0 ? tail : Buffer.concat([...this.#pending, tail], this.#pendingBytes + tail.length);
    this.#pending = [];
    this.#pendingBytes = 0;
    const length = line.length > 0 && line[line.length - 1] === CR ? line.length - 1 : line.length;
    if (length > this.#maxLineBytes) this.#fail();
    this.#pushText(line.toString("utf8", 0, length), out);
  }

  /** `region`: complete lines joined by `\n`, each within the limit. */
  #completeRegion(region: string, out: OutputLine[]): void {
    let from = 0;
    for (;;) {
      const nl = region.indexOf("\n", from);
      let end = nl === -1 ? region.length : nl;
      if (end > from && region.charCodeAt(end - 1) === CR) end--;
      if (end > from) this.#pushText(region.slice(from, end), out);
      if (nl === -1) return;
      from = nl + 1;
    }
  }

  /** Appends the framed line `text` (terminator stripped) unless it is blank. */
  #pushText(text: string, out: OutputLine[]): void {
    // Most lines are JSON objects: skip the blank-line test for them.
    if (text.charCodeAt(0) !== OPEN_BRACE && BLANK.test(text)) return;
    let value: unknown;
    try {
      value = this.#parse(text);
    } catch {
      out.push({ kind: "text", text });
      return;
    }
    out.push({ kind: "json", value, text });
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

const OPEN_BRACE = 0x7b;
