import { closingQuote, hasRawControl, ownString } from "@adaptor/driver/kit";
/**
 * Parses one `codex app-server` stdout line exactly as `JSON.parse` would, with a fast path for
 * the line a long turn is made of: an `item/agentMessage/delta` notification
 * (`{"method":"item/agentMessage/delta","params":{"threadId":"…","turnId":"…","itemId":"…","delta":"…"}}`,
 * optionally followed by `,"emittedAtMs":<integer>`, in the order codex writes them). Such a line
 * is read with a few string searches instead of a full parse; any other line, or one that differs
 * from that shape in any byte (other key order, escapes in an id, whitespace, a number that is not
 * a plain integer), goes to `JSON.parse`. The result is a fresh value equal to `JSON.parse(text)`;
 * text that is not JSON throws like `JSON.parse`.
 */
export function parseAppServerLine(text: string): unknown {
  return hasAt(text, DELTA_PREFIX, 0) ? (parseDelta(text) ?? JSON.parse(text)) : JSON.parse(text);
}

/**
 * Reads the `item/agentMessage/delta` lines of one thread and turn without building their parsed
 * value: {@link read} accepts a line only when it has exactly the shape {@link parseAppServerLine}
 * reads fast and names this thread and turn, and then holds what `JSON.parse` would give as
 * `params.itemId` and `params.delta`. Any other line (another turn, another shape, not JSON) is
 * refused and left to the caller. Consecutive lines of one item share one `itemId` string.
 */
export class DeltaLineReader {
  /** `params.itemId` of the line {@link read} accepted last. */
  itemId = "";
  /** `params.delta` of the line {@link read} accepted last. */
  delta = "";
  /** Everything up to the item id, or undefined when an id would need escapes (no line is accepted). */
  readonly #prefix: string | undefined;
  /** {@link #prefix}, {@link itemId} and the delta key: the start of a line of the same item as the line before. */
  #sameItem: string | undefined;

  constructor(threadId: string, turnId: string) {
    this.#prefix = plainId(threadId) && plainId(turnId) ? `${DELTA_PREFIX}${threadId}${TURN_KEY}${turnId}${ITEM_KEY}` : undefined;
  }

  /**
   * True when `text` is a delta line of this thread and turn; {@link itemId} and {@link delta} are
   * then its values. The common line (the item of the line before, no escape, nothing after the
   * delta but `}}`) is read in this one function, the string helpers written out: each helper
   * called per line would be a hot function of its own for V8 to compile, once alone and again
   * inlined here.
   */
  read(text: string): boolean {
    const prefix = this.#prefix;
    if (prefix === undefined) return false;
    const itemStart = prefix.length;
    // Most lines continue the item of the line before: one compare for everything before the delta
    // (`slice` and `===`, see hasAt).
    const known = this.#sameItem;
    const sameItem = known !== undefined && text.slice(0, known.length) === known;
    let itemEnd = itemStart + this.itemId.length;
    if (!sameItem) {
      if (text.slice(0, itemStart) !== prefix) return false;
      itemEnd = idEnd(text, itemStart, DELTA_KEY);
      if (itemEnd === -1) return false;
    }
    const deltaStart = itemEnd + DELTA_KEY.length;
    const backslash = text.indexOf("\\", itemStart);
    if (backslash !== -1 && backslash < deltaStart) return false;
    const escaped = backslash !== -1;
    let deltaEnd: number;
    if (escaped) {
      deltaEnd = closingQuoteOf(text, deltaStart, true);
      if (deltaEnd === -1) return false;
    } else {
      deltaEnd = text.indexOf('"', deltaStart);
      if (deltaEnd === -1) return false;
      if (deltaEnd - deltaStart > SHORT_DELTA) {
        if (hasRawControl(text, deltaStart, deltaEnd)) return false;
      } else for (let i = deltaStart; i < deltaEnd; i++) if (text.charCodeAt(i) < 0x20) return false;
    }
    const length = text.length;
    const plainTail =
      length === deltaEnd + 3 && text.charCodeAt(deltaEnd + 1) === CLOSE_BRACE && text.charCodeAt(deltaEnd + 2) === CLOSE_BRACE;
    if (!plainTail && tailOf(text, deltaEnd + 1) === BAD_TAIL) return false;
    let delta = text.slice(deltaStart, deltaEnd);
    if (escaped) {
      try {
        delta = JSON.parse(`"${delta}"`) as string;
      } catch {
        return false; // a bad escape: not JSON, the caller's parse says so
      }
    }
    if (!sameItem) {
      // Kept for the item's next lines: copies, not slices that would keep this line's stdout chunk.
      this.itemId = ownString(text.slice(itemStart, itemEnd));
      this.#sameItem = ownString(text.slice(0, deltaStart));
    }
    this.delta = delta;
    return true;
  }

  /** Lets go of the last line's delta (a slice of that line), e.g. before the stdout reader waits. */
  release(): void {
    this.delta = "";
  }
}

const DELTA_METHOD = "item/agentMessage/delta";
const DELTA_PREFIX = `{"method":"${DELTA_METHOD}","params":{"threadId":"`;
const TURN_KEY = '","turnId":"';
const ITEM_KEY = '","itemId":"';
const DELTA_KEY = '","delta":"';
const EMITTED_KEY = ',"emittedAtMs":';
const EMITTED_TAIL_START = `}${EMITTED_KEY}`;
const CLOSE_BRACE = 0x7d;
/** A delta up to this many UTF-16 units is checked for raw control characters in {@link DeltaLineReader.read}'s own loop. */
const SHORT_DELTA = 32;
const MAX_PLAIN_INTEGER_DIGITS = 15; // below 2^53: Number() gives what JSON.parse gives
const PLAIN_TAIL = 0;
const EMITTED_TAIL = 1;
const BAD_TAIL = -1;

/**
 * True when `key` occurs in `text` at `at`. Not `startsWith`: a framed line is usually a slice of
 * a larger string, which `startsWith` compares far more slowly than a slice and `===`.
 */
function hasAt(text: string, key: string, at: number): boolean {
  return text.length >= at + key.length && text.slice(at, at + key.length) === key;
}

/** The end of an id starting at `from`: its closing quote, which `key` must follow, with no raw control character before it (not JSON); else -1. */
function idEnd(text: string, from: number, key: string): number {
  const end = text.indexOf('"', from);
  return end !== -1 && hasAt(text, key, end) && !hasRawControl(text, from, end) ? end : -1;
}

// eslint-disable-next-line no-control-regex -- an id JSON writes without escapes: no quote, backslash or control character
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/** True when JSON writes `id` as it is, between quotes. */
function plainId(id: string): boolean {
  return !NEEDS_ESCAPE.test(id);
}

/**
 * The closing quote of the delta string starting at `deltaStart` (`escaped`: a backslash occurs at
 * or after it), or -1 when there is none or a raw control character comes before it (not JSON).
 */
function closingQuoteOf(text: string, deltaStart: number, escaped: boolean): number {
  // Native searches, no loop per character, unless the delta holds an escape.
  const deltaEnd = escaped ? closingQuote(text, deltaStart) : text.indexOf('"', deltaStart);
  if (deltaEnd === -1) return -1;
  return hasRawControl(text, deltaStart, deltaEnd) ? -1 : deltaEnd;
}

/** What follows the delta string at `rest`: `}}` ({@link PLAIN_TAIL}), `},"emittedAtMs":<plain integer>}` ({@link EMITTED_TAIL}), else {@link BAD_TAIL}. */
function tailOf(text: string, rest: number): number {
  const length = text.length;
  if (length === rest + 2 && text.charCodeAt(rest) === CLOSE_BRACE && text.charCodeAt(rest + 1) === CLOSE_BRACE) return PLAIN_TAIL;
  if (!hasAt(text, EMITTED_TAIL_START, rest) || text.charCodeAt(length - 1) !== CLOSE_BRACE) return BAD_TAIL;
  const digits = text.slice(rest + 1 + EMITTED_KEY.length, -1);
  return digits.length === 0 || digits.length > MAX_PLAIN_INTEGER_DIGITS || !/^(0|[1-9][0-9]*)$/.test(digits) ? BAD_TAIL : EMITTED_TAIL;
}

/** The delta's value: the raw text, or its escapes decoded. */
function deltaOf(text: string, deltaStart: number, deltaEnd: number, escaped: boolean): string {
  const raw = text.slice(deltaStart, deltaEnd);
  return escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
}

function parseDelta(text: string): unknown {
  const threadStart = DELTA_PREFIX.length;
  const threadEnd = idEnd(text, threadStart, TURN_KEY);
  if (threadEnd === -1) return undefined;
  const turnStart = threadEnd + TURN_KEY.length;
  const turnEnd = idEnd(text, turnStart, ITEM_KEY);
  if (turnEnd === -1) return undefined;
  const itemStart = turnEnd + ITEM_KEY.length;
  const itemEnd = idEnd(text, itemStart, DELTA_KEY);
  if (itemEnd === -1) return undefined;
  const deltaStart = itemEnd + DELTA_KEY.length;
  // An escape before the delta (in an id, where a quote could hide) is not this shape; one inside
  // the delta needs the careful scan.
  const backslash = text.indexOf("\\", threadStart);
  if (backslash !== -1 && backslash < deltaStart) return undefined;
  const escaped = backslash !== -1;
  const deltaEnd = closingQuoteOf(text, deltaStart, escaped);
  if (deltaEnd === -1) return undefined; // not this shape, or not JSON: let JSON.parse say so
  const tail = tailOf(text, deltaEnd + 1);
  if (tail === BAD_TAIL) return undefined;
  const params = {
    threadId: text.slice(threadStart, threadEnd),
    turnId: text.slice(turnStart, turnEnd),
    itemId: text.slice(itemStart, itemEnd),
    delta: deltaOf(text, deltaStart, deltaEnd, escaped),
  };
  return tail === PLAIN_TAIL
    ? { method: DELTA_METHOD, params }
    : { method: DELTA_METHOD, params, emittedAtMs: Number(text.slice(deltaEnd + 2 + EMITTED_KEY.length, -1)) };
}
