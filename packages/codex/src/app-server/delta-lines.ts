import { LineTemplate, ownString } from "@adaptor/driver/kit";

/** The notifications of a turn that come in long runs: one per streamed piece of an item. */
export const DELTA_METHODS = [
  "item/agentMessage/delta",
  "item/reasoning/summaryTextDelta",
  "item/reasoning/textDelta",
  "item/commandExecution/outputDelta",
] as const;

/** One of {@link DELTA_METHODS}. */
export type DeltaMethod = (typeof DELTA_METHODS)[number];

/** At most this many shapes are kept (one per item streaming at once and part index, the latest first). */
const MAX_SHAPES = 8;

/**
 * Reads the delta notifications of one thread and turn ({@link DELTA_METHODS}) in any key order
 * without parsing them, once a line of the same item and shape was parsed: {@link learn} takes a
 * line the caller parsed (a notification with exactly `method` and `params`, written compactly;
 * `params` with a string `itemId` and `delta`), keeps it as a `LineTemplate` with the delta cut
 * out (everything else, the thread, turn and item ids, key order, a part index, stays constant
 * text: one slot, so a line is matched without a match array), and {@link read} then accepts a
 * line only when it is such a shape with another delta, leaving the method, item id and delta as
 * `JSON.parse` gives them. Any other line is refused and left to the caller's parse.
 */
export class DeltaLineTemplates {
  /** Learned shapes, the one that matched last first. */
  readonly #shapes: { readonly method: DeltaMethod; readonly itemId: string; readonly template: LineTemplate }[] = [];
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
      this.itemId = shape.itemId;
      // A slice of the line, which is a slice of the stdout chunk it came in: the template lets go
      // of it at once, `delta` when the caller releases it.
      const values = template.values;
      this.delta = values[0]!;
      values[0] = "";
      return true;
    }
    return false;
  }

  /** Lets go of the last line's delta (a slice of that line), e.g. before the stdout reader waits. */
  release(): void {
    this.delta = "";
  }

  /**
   * Learns the shape of `line`, the notification `method` with `params` as the caller parsed it,
   * when it is a delta of {@link DELTA_METHODS} written compactly with no member but `method` and
   * `params`; else nothing changes.
   */
  learn(line: string, method: DeltaMethod, params: Record<string, unknown>): void {
    const itemId = params.itemId;
    if (typeof itemId !== "string" || typeof params.delta !== "string") return;
    const shapedParams: Record<string, unknown> = {};
    for (const key of Object.keys(params)) shapedParams[key] = key === "delta" ? DELTA_SLOT : params[key];
    // The line's own member order: `LineTemplate.learn` accepts only the one that gives the line back.
    const methodFirst = line.startsWith('{"method"');
    const parsed = methodFirst ? { method, params } : { params, method };
    const shaped = methodFirst ? { method, params: shapedParams } : { params: shapedParams, method };
    const template = LineTemplate.learn(line, parsed, shaped, method === "item/commandExecution/outputDelta" ? KEPT_SLOTS : SLOTS);
    if (template === undefined) return;
    // Kept with the shape: a copy, not a slice that would keep this line's stdout chunk.
    this.#shapes.unshift({ method, itemId: ownString(itemId), template });
    if (this.#shapes.length > MAX_SHAPES) this.#shapes.pop();
  }
}

/** The marker standing for the delta cut out of a learned line. */
const DELTA_SLOT = "\u2060adaptor-delta\u2060";
const SLOTS = [{ marker: DELTA_SLOT, escapable: true }];
/** Command output is kept until its item completes: its deltas are copied out of the line (a slice keeps the whole stdout chunk alive). */
const KEPT_SLOTS = [{ marker: DELTA_SLOT, escapable: true, own: true }];
