import { closingQuote, hasRawControl } from "@adaptor/driver/kit";
/**
 * Reads the line a long streamed turn is made of, a text delta, without parsing it: a
 * `stream_event` line holding a `content_block_delta` whose delta is a `text_delta`, exactly as
 * claude 2.1.332 writes it with `--include-partial-messages`:
 *
 * `{"type":"stream_event","event":{"type":"content_block_delta","index":<n>,"delta":{"type":"text_delta","text":"…"}},"session_id":"…","parent_tool_use_id":null,"uuid":"…","api_message_id":"…"}`
 *
 * (`parent_tool_use_id` may also be a string; `api_message_id` may be absent). {@link read}
 * accepts a line only when it has exactly this shape, every id is a string JSON writes without
 * escapes, the text is not empty and the whole line is valid JSON; it then returns what
 * `JSON.parse(line).event.delta.text` gives. Any other line (other keys or key order, whitespace,
 * escapes in an id, a prompt tag such as `user_message_uuid`, not JSON) is refused with
 * `undefined` and left to the caller's parse. A refused line is never partly read.
 */
export class TextDeltaLineReader {
  /** The start of the last accepted line, up to its text (the prefix and its block index). */
  #head: string | undefined;
  /** The part of the last accepted line's tail before its `uuid` value. */
  #tailHead: string | undefined;
  /** The part of the last accepted line's tail after its `uuid` value (closing quote on). */
  #tailEnd: string | undefined;

  /** The delta's text when `line` is a text-delta line of the exact shape, else undefined. */
  read(line: string): string | undefined {
    // Most lines repeat the start of the line before (same block index): one compare.
    let textStart: number;
    const head = this.#head;
    const sameHead = head !== undefined && hasAt(line, head, 0);
    if (sameHead) textStart = head.length;
    else {
      textStart = headEnd(line);
      if (textStart === -1) return undefined;
    }
    const backslash = line.indexOf("\\", textStart);
    const escaped = backslash !== -1;
    const textEnd = escaped ? closingQuote(line, textStart) : line.indexOf('"', textStart);
    if (textEnd <= textStart) return undefined; // no closing quote, or an empty text (no event: the parse path says so)
    if (escaped && line.indexOf("\\", textEnd) !== -1) return undefined; // an escape after the text: an id needs the parse
    if (hasRawControl(line, textStart, textEnd)) return undefined;
    const tailStart = textEnd + BLOCK_END.length;
    if (!hasAt(line, BLOCK_END, textEnd)) return undefined;
    if (!this.#sameTail(line, tailStart) && !this.#newTail(line, tailStart)) return undefined;
    let text = line.slice(textStart, textEnd);
    if (escaped) {
      try {
        text = JSON.parse(`"${text}"`) as string;
      } catch {
        return undefined; // a bad escape: not JSON, the caller's parse says so
      }
    }
    if (!sameHead) this.#head = line.slice(0, textStart);
    return text;
  }

  /** The tail is the last accepted line's with another uuid (no backslash in it: checked by the caller). */
  #sameTail(line: string, tailStart: number): boolean {
    const tailHead = this.#tailHead;
    const tailEnd = this.#tailEnd;
    if (tailHead === undefined || tailEnd === undefined || !hasAt(line, tailHead, tailStart)) return false;
    const uuidStart = tailStart + tailHead.length;
    const uuidEnd = line.length - tailEnd.length;
    return uuidEnd >= uuidStart && hasAt(line, tailEnd, uuidEnd) && plainSpan(line, uuidStart, uuidEnd);
  }

  /** Checks the tail against the full shape and, when it fits, keeps its parts for {@link #sameTail}. */
  #newTail(line: string, tailStart: number): boolean {
    TAIL.lastIndex = tailStart;
    if (!TAIL.test(line) || TAIL.lastIndex !== line.length) return false;
    const uuidStart = line.indexOf(UUID_KEY, tailStart) + UUID_KEY.length;
    const uuidEnd = line.indexOf('"', uuidStart);
    this.#tailHead = line.slice(tailStart, uuidStart);
    this.#tailEnd = line.slice(uuidEnd);
    return true;
  }
}

const PREFIX = '{"type":"stream_event","event":{"type":"content_block_delta","index":';
const DELTA_KEY = ',"delta":{"type":"text_delta","text":"';
/** Closes the text, the delta and the event. */
const BLOCK_END = '"}}';
const UUID_KEY = ',"uuid":"';
/** A string JSON writes as it is: no quote, backslash or control character. */
const PLAIN = String.raw`"[^"\\\u0000-\u001f]*"`;
/** Everything after the event, as claude writes it, to the end of the line. */
const TAIL = new RegExp(
  String.raw`,"session_id":${PLAIN},"parent_tool_use_id":(?:null|${PLAIN}),"uuid":${PLAIN}(?:,"api_message_id":${PLAIN})?\}`,
  "y",
);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ZERO = 0x30;
const NINE = 0x39;
const MAX_INDEX_DIGITS = 15; // a plain integer below 2^53

/**
 * True when `key` occurs in `text` at `at`. Neither `startsWith` nor a slice and `===`: a framed
 * line is usually a slice of a larger string, which those compare far more slowly than
 * `lastIndexOf` from `at` (no new string; at offset 0 it looks at that one place only).
 */
function hasAt(text: string, key: string, at: number): boolean {
  return text.length >= at + key.length && text.lastIndexOf(key, at) === at;
}

/** Where the text starts in a line of the shape (prefix, a plain integer index, delta key), else -1. */
function headEnd(line: string): number {
  if (!hasAt(line, PREFIX, 0)) return -1;
  const digitsStart = PREFIX.length;
  let i = digitsStart;
  while (i < line.length && i - digitsStart <= MAX_INDEX_DIGITS) {
    const c = line.charCodeAt(i);
    if (c < ZERO || c > NINE) break;
    i++;
  }
  const digits = i - digitsStart;
  if (digits === 0 || digits > MAX_INDEX_DIGITS || (digits > 1 && line.charCodeAt(digitsStart) === ZERO)) return -1;
  return hasAt(line, DELTA_KEY, i) ? i + DELTA_KEY.length : -1;
}

/** No quote, backslash or control character between `from` and `to`. */
function plainSpan(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === QUOTE || c === BACKSLASH) return false;
  }
  return true;
}
