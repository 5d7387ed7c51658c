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

/** An id between `from` and the next quote, when it holds no escape; else undefined. */
function idEnd(text: string, from: number, key: string): number {
  const end = text.indexOf('"', from);
  if (end === -1 || !text.startsWith(key, end)) return -1;
  const backslash = text.indexOf("\\", from);
  return backslash !== -1 && backslash < end ? -1 : end;
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
  // The closing quote of the delta: the first quote not escaped by a backslash.
  let escaped = false;
  let deltaEnd = -1;
  for (let i = deltaStart; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      deltaEnd = i;
      break;
    }
    if (c === BACKSLASH) {
      escaped = true;
      i++; // skip the escaped character
    } else if (c < 0x20) return undefined; // a raw control character: not JSON, let JSON.parse say so
  }
  if (deltaEnd === -1) return undefined;
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
  const params = { threadId: text.slice(threadStart, threadEnd), turnId: text.slice(turnStart, turnEnd), itemId: text.slice(itemStart, itemEnd), delta };
  return emittedAtMs === undefined ? { method: DELTA_METHOD, params } : { method: DELTA_METHOD, params, emittedAtMs };
}
