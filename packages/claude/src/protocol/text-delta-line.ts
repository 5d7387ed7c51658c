import { LineTemplate } from "@adaptor/driver/kit";
/**
 * Reads the line a long streamed turn is made of, a text delta, without parsing it: a
 * `stream_event` line holding a `content_block_delta` whose delta is a `text_delta`, as claude
 * writes it with `--include-partial-messages`, e.g. (claude 2.1.332):
 *
 * `{"type":"stream_event","event":{"type":"content_block_delta","index":<n>,"delta":{"type":"text_delta","text":"…"}},"session_id":"…","parent_tool_use_id":null,"uuid":"…","api_message_id":"…"}`
 *
 * The reader learns the shape from a line the caller parsed ({@link learn}): a text delta with
 * exactly these keys, in any order, written compactly (`JSON.stringify` of the parsed value gives
 * the line back). The shape is the line with its text, `uuid`, `session_id` and `api_message_id`
 * values cut out; everything else (key order, block index, `parent_tool_use_id`) is part of it. The
 * session id is cut out though it stays the same along a process's output: what a delta line gives
 * does not depend on it, and so every process of the same CLI learns the same shape, whose pattern
 * is compiled once ({@link LineTemplate}). {@link read} then accepts a line only when it is the
 * shape with a non-empty text and ids that JSON writes without escapes, and returns what
 * `JSON.parse(line).event.delta.text` gives. Any
 * other line (another shape, key order or block index, whitespace, escapes in an id, a prompt tag
 * such as `user_message_uuid`, not JSON) is refused with `undefined` and left to the caller's
 * parse, which may {@link learn} it. A refused line is never partly read. Given the turn's session
 * id, {@link read} also refuses a line of another session (the shape keeps the cut-out value to
 * compare), for the caller's parse to drop.
 */
export class TextDeltaLineReader {
  /** The learned shape, if any. */
  #shape: LineTemplate | undefined;

  /**
   * The delta's text when `line` has the learned shape (and, given `sessionId`, names that
   * session), else undefined.
   */
  read(line: string, sessionId?: string): string | undefined {
    const shape = this.#shape;
    if (shape === undefined || !shape.match(line)) return undefined;
    const values = shape.values;
    const session = values[SESSION_VALUE];
    const text = values[0]!;
    // The values are slices of the line, which is a slice of the stdout chunk it came in: kept
    // here until the next line, they would keep that chunk alive for as long as the turn waits
    // after its last delta (an approval), in every run waiting at once.
    values[0] = values[SESSION_VALUE] = "";
    if (sessionId !== undefined && session !== sessionId) return undefined;
    return text === "" ? undefined : text; // an empty text: no event, the parse path says so
  }

  /**
   * Learns the shape of `line`, which the caller parsed to `message`, when it is an untagged text
   * delta of the shape (see the class) written compactly; any other line leaves the reader as it was.
   */
  learn(line: string, message: Record<string, unknown>): void {
    if (message.type !== "stream_event") return;
    const shaped = withSlots(message);
    if (shaped === undefined) return;
    const slots = message.api_message_id === undefined ? SLOTS.slice(0, 3) : SLOTS;
    this.#shape = LineTemplate.learn(line, message, shaped, slots) ?? this.#shape;
  }
}

/** Markers standing for the values cut out of a learned line. */
const TEXT_SLOT = "\u2060adaptor-text\u2060";
const UUID_SLOT = "\u2060adaptor-uuid\u2060";
const SESSION_SLOT = "\u2060adaptor-session-id\u2060";
const API_MESSAGE_SLOT = "\u2060adaptor-api-message-id\u2060";
/** The index of the session id in a template's values (the order of {@link SLOTS}). */
const SESSION_VALUE = 2;
const SLOTS = [
  { marker: TEXT_SLOT, escapable: true },
  { marker: UUID_SLOT, escapable: false, keep: false },
  { marker: SESSION_SLOT, escapable: false },
  { marker: API_MESSAGE_SLOT, escapable: false, keep: false },
];
const TOP_KEYS = new Set(["type", "event", "session_id", "parent_tool_use_id", "uuid", "api_message_id"]);
const EVENT_KEYS = new Set(["type", "index", "delta"]);
const DELTA_KEYS = new Set(["type", "text"]);

/**
 * `message` with its text, `uuid`, `session_id` and `api_message_id` replaced by the slot markers, keys in the
 * same order, when it is an untagged text delta of the shape; else undefined.
 */
function withSlots(message: Record<string, unknown>): Record<string, unknown> | undefined {
  const event = message.event as Record<string, unknown> | null;
  if (!onlyKeys(message, TOP_KEYS) || typeof event !== "object" || event === null || !onlyKeys(event, EVENT_KEYS)) return undefined;
  const delta = event.delta as Record<string, unknown> | null;
  if (typeof delta !== "object" || delta === null || !onlyKeys(delta, DELTA_KEYS)) return undefined;
  if (event.type !== "content_block_delta" || !Number.isSafeInteger(event.index) || (event.index as number) < 0) return undefined;
  if (delta.type !== "text_delta" || typeof delta.text !== "string" || delta.text === "") return undefined;
  if (typeof message.session_id !== "string" || typeof message.uuid !== "string") return undefined;
  if (message.parent_tool_use_id !== null && typeof message.parent_tool_use_id !== "string") return undefined;
  if (message.api_message_id !== undefined && typeof message.api_message_id !== "string") return undefined;
  const replaced: Record<string, unknown> = {};
  for (const key of Object.keys(message)) {
    if (key === "event") {
      const e: Record<string, unknown> = {};
      for (const k of Object.keys(event)) {
        if (k !== "delta") e[k] = event[k];
        else {
          const d: Record<string, unknown> = {};
          for (const dk of Object.keys(delta)) d[dk] = dk === "text" ? TEXT_SLOT : delta[dk];
          e[k] = d;
        }
      }
      replaced[key] = e;
    } else if (key === "uuid") replaced[key] = UUID_SLOT;
    else if (key === "session_id") replaced[key] = SESSION_SLOT;
    else if (key === "api_message_id") replaced[key] = API_MESSAGE_SLOT;
    else replaced[key] = message[key];
  }
  return replaced;
}

/** Every own key of `value` is in `keys`, and the required ones (all but `api_message_id`) are there. */
function onlyKeys(value: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  const own = Object.keys(value);
  for (const key of own) if (!keys.has(key)) return false;
  return own.length === keys.size || (keys.has("api_message_id") && own.length === keys.size - 1 && !("api_message_id" in value));
}
