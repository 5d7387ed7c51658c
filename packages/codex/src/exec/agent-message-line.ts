import { LineTemplate, ownString } from "@adaptor/driver/kit";

/**
 * Reads the line a long `codex exec --json` turn is mostly made of, a completed agent message,
 * without parsing it, e.g. (codex 0.171.0):
 *
 * `{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"…"}}`
 *
 * The reader learns the shape from a line the caller parsed ({@link learn}): an `item.completed`
 * whose item is an `agent_message` with exactly `id`, `type` and `text` (any key order), written
 * compactly (`JSON.stringify` of the parsed value gives the line back). {@link read} then accepts
 * a line only when it is that shape with another id (a string JSON writes without escapes) and
 * text, and leaves them in {@link id} and {@link text} as `JSON.parse` gives them. Any other line
 * is refused and left to the caller's parse, which may {@link learn} it.
 */
export class AgentMessageLineReader {
  #shape: LineTemplate | undefined;
  /** The item id of the last line {@link read} accepted (a string of its own, not a slice of the line). */
  id = "";
  /** The text of the last line {@link read} accepted (a string of its own, not a slice of the line). */
  text = "";

  /** True when `line` has the learned shape; {@link id} and {@link text} then hold its values. */
  read(line: string): boolean {
    const shape = this.#shape;
    if (shape === undefined || !shape.match(line)) return false;
    const values = shape.values;
    // The values are slices of the line, which is a slice of the stdout chunk it came in: kept here
    // until the next line, they would keep that chunk alive for as long as the turn waits after its
    // last message, in every run waiting at once. The text is a string of its own already (its slot
    // is `own`); an id is short and copied only when longer than a slice V8 copies by itself.
    this.id = ownString(values[0]!);
    this.text = values[1]!;
    values[0] = values[1] = "";
    return true;
  }

  /** Learns the shape of `line`, parsed to `event`, when it is a compact completed agent message of the shape. */
  learn(line: string, event: Record<string, unknown>): void {
    if (event.type !== "item.completed" || Object.keys(event).length !== 2) return;
    const item = event.item as Record<string, unknown> | null;
    if (typeof item !== "object" || item === null || item.type !== "agent_message") return;
    const keys = Object.keys(item);
    if (keys.length !== 3 || typeof item.id !== "string" || typeof item.text !== "string") return;
    const shapedItem: Record<string, unknown> = {};
    for (const key of keys) shapedItem[key] = key === "id" ? ID_SLOT : key === "text" ? TEXT_SLOT : item[key];
    const shaped: Record<string, unknown> = {};
    for (const key of Object.keys(event)) shaped[key] = key === "item" ? shapedItem : event[key];
    this.#shape = LineTemplate.learn(line, event, shaped, SLOTS) ?? this.#shape;
  }
}

/** Markers standing for the values cut out of a learned line. */
const ID_SLOT = "\u2060adaptor-id\u2060";
const TEXT_SLOT = "\u2060adaptor-text\u2060";
const SLOTS = [
  { marker: ID_SLOT, escapable: false },
  { marker: TEXT_SLOT, escapable: true, own: true }, // kept in the transcript
];
