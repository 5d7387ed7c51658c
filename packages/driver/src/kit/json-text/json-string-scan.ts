const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Spans up to this many UTF-16 units are checked for raw control characters by a loop. */
const SHORT_SPAN = 32;
// eslint-disable-next-line no-control-regex -- exactly the characters JSON refuses raw inside a string
const CONTROL = /[\u0000-\u001f]/g;

/**
 * For a driver's fast path on its most frequent JSON line: the index of the first quote at or after
 * `from` that no backslash escapes (the end of a JSON string whose contents start at `from`), or -1
 * when there is none.
 */
export function closingQuote(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i;
    if (c === BACKSLASH) i++; // skip the escaped character
  }
  return -1;
}

/**
 * True when `text` holds a raw control character (U+0000–U+001F, which JSON refuses inside a string)
 * in [`from`, `to`). A short span is checked by a loop, a longer one by one regular-expression search.
 */
export function hasRawControl(text: string, from: number, to: number): boolean {
  if (to - from <= SHORT_SPAN) {
    for (let i = from; i < to; i++) if (text.charCodeAt(i) < 0x20) return true;
    return false;
  }
  CONTROL.lastIndex = from;
  const control = CONTROL.exec(text);
  return control !== null && control.index < to;
}

/**
 * A regular-expression source matching the contents of a JSON string without escapes (no quote,
 * backslash or control character): what JSON writes as it is between quotes.
 */
export const PLAIN_STRING_BODY = String.raw`[^"\\\x00-\x1f]*`;

/**
 * A regular-expression source matching the contents of any JSON string (between its quotes):
 * plain runs and JSON's escapes; a bad escape or a raw control character does not match. Decode a
 * match holding a backslash with `JSON.parse` of it in quotes.
 */
export const JSON_STRING_BODY = String.raw`[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*`;

/** `text` as a regular-expression source matching exactly itself. */
export function escapeForPattern(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}
