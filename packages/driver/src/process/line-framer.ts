import { DriverError, ErrCode } from "@adaptor/errors";
import { DEFAULT_MAX_LINE_BYTES } from "./constants.js";
import type { OutputLine } from "./output-line.js";

const LF = 0x0a;
const CR = 0x0d;
const OPEN_BRACE = 0x7b;
const BLANK = /^\s*$/;
/**
 * The most bytes of complete lines decoded into one string (see {@link LineFramer.push}). Lines
 * are slices of the string they were decoded in, which lives until the last of them is let go:
 * a consumer taking a chunk's lines one at a time frees a piece this long as soon as it is past
 * it, rather than the whole chunk (up to 64 KiB) only at its end.
 */
const REGION_BYTES = 8 * 1024;

/** Parses a framed line; must return what `JSON.parse` returns and throw where it throws. */
export type LineParser = (text: string) => unknown;

/**
 * Line framing over raw bytes: the texts of complete lines, terminator (`\n` or `\r\n`) stripped,
 * blank lines (empty or whitespace only) skipped, each decoded as UTF-8 only once complete; with a
 * parser, each line parsed as it is framed (`JsonLinesDecoder`). Internal to the process module.
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
   * Feeds one chunk and returns the lines it completed, in order: their texts, or with `parse`
   * the parsed lines ({@link toOutputLine}).
   *
   * @throws DriverError `RESOURCE_EXHAUSTED` when a line exceeds `maxLineBytes`. Lines completed before
   * the over-long one in the same chunk are returned first and the error is thrown by the next call
   * (`push(Buffer.alloc(0))` surfaces it at once); with none before it, this call throws.
   */
  push(chunk: Uint8Array): string[];
  push(chunk: Uint8Array, parse: LineParser): OutputLine[];
  push(chunk: Uint8Array, parse?: LineParser): (string | OutputLine)[] {
    if (this.#failure) throw this.#failure;
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let out: (string | OutputLine)[] = [];
    try {
      const first = bytes.indexOf(LF);
      if (first === -1) {
        if (bytes.length > 0) this.#buffer(bytes);
        return out;
      }
      this.#completeLine(bytes.subarray(0, first), out, parse);
      const last = bytes.lastIndexOf(LF);
      if (last > first) {
        // Complete lines between the first and the last LF. When their bytes together fit the limit,
        // no line among them can exceed it: decode them with one call (LF never occurs inside a
        // multi-byte UTF-8 sequence) and split the string. Otherwise check line by line.
        if (last - first - 1 <= this.#maxLineBytes) {
          // In pieces of about REGION_BYTES, each cut at a LF (a line longer than that is a piece of its own).
          for (let from = first + 1; from <= last;) {
            let to = last;
            if (last - from > REGION_BYTES) {
              to = bytes.lastIndexOf(LF, from + REGION_BYTES);
              if (to < from) to = bytes.indexOf(LF, from + REGION_BYTES);
            }
            const region = bytes.toString("utf8", from, to);
            const lines: (string | OutputLine)[] | undefined = parse === undefined ? splitRegion(region) : undefined;
            if (lines === undefined) completeRegion(region, out, parse);
            else if (out.length === 0) out = lines;
            else for (const line of lines) out.push(line);
            from = to + 1;
          }
        } else {
          let start = first + 1;
          for (let nl = bytes.indexOf(LF, start); nl !== -1 && nl <= last; nl = bytes.indexOf(LF, start)) {
            this.#completeLine(bytes.subarray(start, nl), out, parse);
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
  end(): string[];
  end(parse: LineParser): OutputLine[];
  end(parse?: LineParser): (string | OutputLine)[] {
    if (this.#failure) throw this.#failure;
    const out: (string | OutputLine)[] = [];
    if (this.#pendingBytes > 0) this.#completeLine(Buffer.alloc(0), out, parse);
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

  #completeLine(tail: Buffer, out: (string | OutputLine)[], parse: LineParser | undefined): void {
    const line = this.#pendingBytes === 0 ? tail : Buffer.concat([...this.#pending, tail], this.#pendingBytes + tail.length);
    this.#pending = [];
    this.#pendingBytes = 0;
    const length = line.length > 0 && line[line.length - 1] === CR ? line.length - 1 : line.length;
    if (length > this.#maxLineBytes) this.#fail();
    pushText(line.toString("utf8", 0, length), out, parse);
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

/**
 * The texts of the lines of `region` (complete lines joined by `\n`) by one native split, when
 * none of them needs more than the split: no CR anywhere, and every line a JSON object's start
 * (not blank); else undefined, for {@link completeRegion}.
 */
function splitRegion(region: string): string[] | undefined {
  if (region.indexOf("\r") !== -1) return undefined;
  const lines = region.split("\n");
  for (let i = 0; i < lines.length; i++) if (lines[i]!.charCodeAt(0) !== OPEN_BRACE) return undefined;
  return lines;
}

/** `region`: complete lines joined by `\n`, each within the limit. */
function completeRegion(region: string, out: (string | OutputLine)[], parse: LineParser | undefined): void {
  let from = 0;
  for (;;) {
    const nl = region.indexOf("\n", from);
    let end = nl === -1 ? region.length : nl;
    if (end > from && region.charCodeAt(end - 1) === CR) end--;
    if (end > from) pushText(region.slice(from, end), out, parse);
    if (nl === -1) return;
    from = nl + 1;
  }
}

/** Appends the framed line `text` (terminator stripped), parsed when `parse` is given, unless it is blank. */
function pushText(text: string, out: (string | OutputLine)[], parse: LineParser | undefined): void {
  // Most lines are JSON objects: skip the blank-line test for them.
  if (text.charCodeAt(0) !== OPEN_BRACE && BLANK.test(text)) return;
  out.push(parse === undefined ? text : toOutputLine(text, parse));
}

/** The framed line `text` parsed by `parse`: `kind: "json"` with its value, or `kind: "text"` where `parse` throws. */
export function toOutputLine(text: string, parse: LineParser): OutputLine {
  let value: unknown;
  try {
    value = parse(text);
  } catch {
    return { kind: "text", text };
  }
  return { kind: "json", value, text };
}
