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
  return text.startsWith(DELTA_PREFIX) ? (parseDelta(text) ?? JSON.parse(text)) : JSON.parse(text);
}

const DELTA_METHOD = "item/agentMessage/delta";
const DELTA_PREFIX = `{"method":"${DELTA_METHOD}","params":{"threadId":"`;
const TURN_KEY = '","turnId":"';
const ITEM_KEY = '","itemId":"';
const DELTA_KEY = '","delta":"';
const EMITTED_KEY = ',"emittedAtMs":';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_PLAIN_INTEGER_DIGITS = 15; // below 2^53: Number() gives what JSON.parse gives

/** The end of an id starting at `from`: its closing quote, which `key` must follow; else -1. */
function idEnd(text: string, from: number, key: string): number {
  const end = text.indexOf('"', from);
  return end !== -1 && text.startsWith(key, end) ? end : -1;
}

/** A raw control character, which JSON does not allow inside a string. */
// eslint-disable-next-line no-control-regex -- exactly the characters JSON refuses raw inside a string
const CONTROL = /[\u0000-\u001f]/g;

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
  // Native searches, no loop per character: an escape before the delta (in an id, where a quote
  // could hide) is not this shape; one inside the delta needs the careful scan below.
  const backslash = text.indexOf("\\", threadStart);
  if (backslash !== -1 && backslash < deltaStart) return undefined;
  const escaped = backslash !== -1;
  const deltaEnd = escaped ? closingQuote(text, deltaStart) : text.indexOf('"', deltaStart);
  if (deltaEnd === -1) return undefined;
  CONTROL.lastIndex = deltaStart;
  const control = CONTROL.exec(text);
  if (control !== null && control.index < deltaEnd) return undefined; // not JSON: let JSON.parse say so
  let emittedAtMs: number | undefined;
  const rest = deltaEnd + 1;
  if (text.length === rest + 2 && text.endsWith("}}")) {
    // {"method":…,"params":{…}}
  } else if (text.startsWith("}" + EMITTED_KEY, rest) && text.endsWith("}")) {
    const digits = text.slice(rest + 1 + EMITTED_KEY.length, -1);
    if (digits.length === 0 || digits.length > MAX_PLAIN_INTEGER_DIGITS || !/^(0|[1-9][0-9]*)$/.test(digits)) return undefined;
    emittedAtMs = Number(digits);
  } else return undefined;
  const raw = text.slice(deltaStart, deltaEnd);
  const delta = escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
  const params = {
    threadId: text.slice(threadStart, threadEnd),
    turnId: text.slice(turnStart, turnEnd),
    itemId: text.slice(itemStart, itemEnd),
    delta,
  };
  return emittedAtMs === undefined ? { method: DELTA_METHOD, params } : { method: DELTA_METHOD, params, emittedAtMs };
}

/** The first quote from `from` on that no backslash escapes, else -1. */
function closingQuote(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i;
    if (c === BACKSLASH) i++; // skip the escaped character
  }
  return -1;
}
