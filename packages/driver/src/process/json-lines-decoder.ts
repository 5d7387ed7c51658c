import { LineFramer } from "./line-framer.js";
import type { OutputLine } from "./output-line.js";

/** Options of {@link JsonLinesDecoder}. */
export interface JsonLinesDecoderOptions {
  /** Longest line in bytes, terminator (`\n` or `\r\n`) excluded. Default `DEFAULT_MAX_LINE_BYTES` (64 MiB). */
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
 * bytes of an incomplete line. A line over the limit fails with a `DriverError`
 * `{ op: "read", code: RESOURCE_EXHAUSTED, cause: "line exceeds <n> bytes" }`; once failed the decoder
 * stays failed and every later `push()` / `end()` throws that same error.
 */
export class JsonLinesDecoder {
  readonly #framer: LineFramer;
  readonly #parse: (text: string) => unknown;

  /**
   * @param opts.maxLineBytes - positive integer, bytes; default 64 MiB.
   * @param opts.device - name used in errors; default `"stdout"`.
   * @param opts.parse - the line parser; default `JSON.parse`.
   * @throws DriverError `INVALID` (op `"decode"`) when `maxLineBytes` is not a positive integer.
   */
  constructor(opts: JsonLinesDecoderOptions = {}) {
    this.#framer = new LineFramer(opts.maxLineBytes, opts.device);
    this.#parse = opts.parse ?? JSON.parse;
  }

  /**
   * Feeds one chunk and returns the lines it completed, in order.
   *
   * @throws DriverError `RESOURCE_EXHAUSTED` when a line exceeds `maxLineBytes`. Lines completed before
   * the over-long one in the same chunk are returned first and the error is thrown by the next call
   * (`push(Buffer.alloc(0))` surfaces it at once); with none before it, this call throws.
   */
  push(chunk: Uint8Array): OutputLine[] {
    return this.#framer.push(chunk, this.#parse);
  }

  /**
   * Signals end of input: returns the unterminated last line, if any, and resets the decoder.
   *
   * @throws DriverError `RESOURCE_EXHAUSTED` when the decoder failed or that last line is over the limit.
   */
  end(): OutputLine[] {
    return this.#framer.end(this.#parse);
  }
}
