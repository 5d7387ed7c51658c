import { LineTemplate } from "@adaptor/driver/kit";
import { plainId } from "./parse-line.js";

/** The notifications of a turn that come in long runs: one per streamed piece of an item. */
export const DELTA_METHODS = [
  "item/agentMessage/delta",
  "item/reasoning/summaryTextDelta",
  "item/reasoning/textDelta",
  "item/commandExecution/outputDelta",
] as const;

/** One of {@link DELTA_METHODS}. */
export type DeltaMethod = (typeof DELTA_METHODS)[number];

/** At most this many shapes are kept (a shape per method and part index in use, the latest first). */
const MAX_SHAPES = 8;

/**
 * Reads the delta notifications of one thread and turn ({@link DELTA_METHODS}) in any key order
 * without parsing them, once a line of the same shape was parsed: {@link learn} takes a line the
 * caller parsed (a notification with exactly `method` and `params`, written compactly; `params`
 * with a string `itemId` and `delta`), keeps it as a `LineTemplate` with the item id and the delta
 * cut out (everything else, the thread and turn ids, key order, a part index, stays constant
 * text), and {@link read} then accepts a line only when it is such a shape with another item id (a
 * string JSON writes without escapes) and delta, leaving the method, item id and delta as
 * `JSON.parse` gives them. Any other line is refused and left to the caller's parse.
 */
export class DeltaLineTemplates {
  /** Learned shapes, the one that matched last first. */
  readonly #shapes: { readonly method: DeltaMethod; readonly template: LineTemplate }[] = [];
  /** `method` of the line {@link read} accepted last. */
  method: DeltaMethod = DELTA_METHODS[0];
  /** `params.itemId` of the line {@link read} accepted last. */
  itemId = "";
  /** `params.delta` of the line {@link read} accepted last. */
  delta = "";

  /** True when `line` has a learned shape; {@link method}, {@link itemId} and {@link delta} then hold its values. */
  read(line: string): boolean {
    const shapes = this.#shapes;
    for (let i = 0; i < shapes.length; i++) {
      const shape = shapes[i]!;
      const template = shape.template;
      if (!template.match(line)) continue;
      if (i > 0) {
        shapes.splice(i, 1);
        shapes.unshift(shape);
      }
      this.method = shape.method;
      this.itemId = template.values[0]!;
      this.delta = template.values[1]!;
      return true;
    }
    return false;
  }

  /**
   * Learns the shape of `line`, the notification `method` with `params` as the caller parsed it,
   * when it is a delta of {@link DELTA_METHODS} written compactly with no member but `method` and
   * `params`; else nothing changes.
   */
  learn(line: string, method: DeltaMethod, params: Record<string, unknown>): void {
    // An id JSON writes with escapes would never match the id slot: such lines stay parsed.
    if (typeof params.itemId !== "string" || typeof params.delta !== "string" || !plainId(params.itemId)) return;
    const shapedParams: Record<string, unknown> = {};
    for (const key of Object.keys(params)) shapedParams[key] = key === "itemId" ? ID_SLOT : key === "delta" ? DELTA_SLOT : params[key];
    // The line's own member order: `LineTemplate.learn` accepts only the one that gives the line back.
    const methodFirst = line.startsWith('{"method"');
    const parsed = methodFirst ? { method, params } : { params, method };
    const shaped = methodFirst ? { method, params: shapedParams } : { params: shapedParams, method };
    const template = LineTemplate.learn(line, parsed, shaped, method === "item/commandExecution/outputDelta" ? KEPT_SLOTS : SLOTS);
    if (template === undefined) return;
    this.#shapes.unshift({ method, template });
    if (this.#shapes.length > MAX_SHAPES) this.#shapes.pop();
  }
}

/** Markers standing for the values cut out of a learned line. */
const ID_SLOT = "\u2060adaptor-item\u2060";
const DELTA_SLOT = "\u2060adaptor-delta\u2060";
const SLOTS = [
  { marker: ID_SLOT, escapable: false },
  { marker: DELTA_SLOT, escapable: true },
];
/** Command output is kept until its item completes: its deltas are copied out of the line (a slice keeps the whole stdout chunk alive). */
const KEPT_SLOTS = [
  { marker: ID_SLOT, escapable: false },
  { marker: DELTA_SLOT, escapable: true, own: true },
];
