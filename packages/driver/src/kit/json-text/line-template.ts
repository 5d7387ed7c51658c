import { closingQuote, escapeForPattern, JSON_STRING_BODY, PLAIN_STRING_BODY } from "./json-string-scan.js";
import { SHORT_SLICE } from "./own-string.js";

/**
 * The shape of a driver's most frequent JSON line, learned from one such line the driver parsed,
 * so that the next lines of the same shape are read without `JSON.parse`: the line with some
 * string values cut out (the slots) and everything else (keys, their order, other values) kept as
 * constant text. {@link match} accepts a line only when it is those constants with valid JSON
 * strings in the slots (so the whole line is valid JSON and parses to the learned value with other
 * slot values), then {@link values} holds each slot's string as `JSON.parse` gives it. A refused
 * line is never partly read. Templates learned from lines of one shape with the same slot options
 * (each process of a CLI learning its shape anew) share one compiled pattern; each keeps its own
 * {@link values}.
 */
export class LineTemplate {
  /** The whole line as one anchored pattern: the constant parts as they are, a group per kept slot. */
  readonly #pattern: RegExp;
  /** Per capture group (in line order): whether the slot may hold escapes (decoded as `JSON.parse` does). */
  readonly #escapable: readonly boolean[];
  /** Per capture group: whether its value must be a string of its own, not a slice of the line. */
  readonly #own: readonly boolean[];
  /** Per capture group: its slot's index in {@link values}. */
  readonly #order: readonly number[];
  /** Per slot in line order, kept or not: whether it is a capture group. */
  readonly #kept: readonly boolean[];
  /**
   * Per slot in line order: where its value starts, counted from the previous slot's closing quote
   * (the first: from the line's start); then, last, the length of the constant text after the last
   * slot's closing quote.
   */
  readonly #leads: readonly number[];
  /**
   * For a template with one slot only, kept: the lengths of the constant text before and after it.
   * Its value then lies at fixed distances from the line's ends, and {@link match} only tests the
   * pattern (no match array per line).
   */
  readonly #single: { readonly head: number; readonly tail: number } | undefined;
  /** The slots' values after the last accepted line, in the order of the markers given to {@link learn}. */
  readonly values: string[];

  private constructor(
    pattern: RegExp,
    escapable: readonly boolean[],
    own: readonly boolean[],
    order: readonly number[],
    kept: readonly boolean[],
    leads: readonly number[],
    slots: number,
    single: { readonly head: number; readonly tail: number } | undefined,
  ) {
    this.#pattern = pattern;
    this.#escapable = escapable;
    this.#own = own;
    this.#order = order;
    this.#kept = kept;
    this.#leads = leads;
    this.values = Array.from({ length: slots }, () => "");
    this.#single = single;
  }

  /**
   * The template of `line` when `JSON.stringify(parsed) === line` (compact, no duplicate keys) and
   * each marker of `slots` stands for exactly one string value in `shaped` (which is `parsed` with
   * those values replaced by the markers, keys in the same order); else undefined.
   *
   * @param slots - per slot: the marker; whether its value may hold escapes (a text) or must be
   * a string JSON writes as it is (an id: no quote, backslash or control character); whether a
   * plain value is kept in {@link values} (default true; an unkept one reads as `""`); whether an
   * escapable value must be a string of its own (`own`, default false): a slice of a line keeps
   * the whole stdout chunk the line came from alive, so a value the driver keeps past the line
   * (a transcript) is copied.
   */
  static learn(
    line: string,
    parsed: unknown,
    shaped: unknown,
    slots: readonly { readonly marker: string; readonly escapable: boolean; readonly keep?: boolean; readonly own?: boolean }[],
  ): LineTemplate | undefined {
    if (JSON.stringify(parsed) !== line) return undefined;
    const template = JSON.stringify(shaped);
    const key = shapeKey(template, slots);
    let shape = SHAPES.get(key);
    if (shape === undefined) {
      shape = compileShape(template, slots);
      if (shape === undefined) return undefined;
      if (SHAPES.size >= MAX_SHAPES) SHAPES.delete(SHAPES.keys().next().value!);
      SHAPES.set(key, shape);
    }
    return new LineTemplate(shape.pattern, shape.escapable, shape.own, shape.order, shape.kept, shape.leads, slots.length, shape.single);
  }

  /**
   * True when `line` has this shape; {@link values} then holds its slot values. The pattern is only
   * tested (no match array per line): once the line is known to have the shape, each slot's value
   * ends at the first quote no backslash escapes, and the next starts a constant distance after it.
   */
  match(line: string): boolean {
    if (!this.#pattern.test(line)) return false;
    const single = this.#single;
    if (single !== undefined) return this.#keep(0, line.slice(single.head, line.length - single.tail));
    const kept = this.#kept;
    const leads = this.#leads;
    let start = leads[0]!;
    let group = 0;
    for (let slot = 0; slot < kept.length; slot++) {
      const end = closingQuote(line, start);
      if (kept[slot] && !this.#keep(group++, line.slice(start, end))) return false;
      start = end + leads[slot + 1]!;
    }
    return true;
  }

  /** Keeps the raw `value` of capture group `group` as its slot's value, decoded; false for a bad escape. */
  #keep(group: number, value: string): boolean {
    // V8 copies a slice this short; a longer one points into the line unless parsed anew.
    if (this.#escapable[group] && ((this.#own[group] && value.length > SHORT_SLICE) || value.includes("\\"))) {
      try {
        value = JSON.parse(`"${value}"`) as string;
      } catch {
        return false; // not expected (the pattern takes only JSON's escapes); the caller's parse decides
      }
    }
    this.values[this.#order[group]!] = value;
    return true;
  }
}

/** What a learned template is made of, the same for every line of the same shape and slots. */
interface CompiledShape {
  readonly pattern: RegExp;
  readonly escapable: readonly boolean[];
  readonly own: readonly boolean[];
  readonly order: readonly number[];
  readonly kept: readonly boolean[];
  readonly leads: readonly number[];
  readonly single: { readonly head: number; readonly tail: number } | undefined;
}

/**
 * Shapes compiled so far, by {@link shapeKey}: each process of a CLI has its reader learn its
 * shape anew, and a shape whose slots cut out every per-process value is the same for all of them,
 * so its pattern is compiled once (the engine compiles a regular expression on first use, and
 * again to machine code once it runs often) and shared. A pattern is stateless here (neither
 * global nor sticky). At most {@link MAX_SHAPES}, the oldest dropped first.
 */
const SHAPES = new Map<string, CompiledShape>();
const MAX_SHAPES = 64;

/** The options of each slot, as {@link LineTemplate.learn} takes them. */
type Slots = Parameters<typeof LineTemplate.learn>[3];

/** The key of `template` learned with `slots`: the template (JSON text, no raw line break), then each slot's options. */
function shapeKey(template: string, slots: Slots): string {
  return `${template}\n${JSON.stringify(slots.map((slot) => [slot.marker, slot.escapable, slot.keep !== false, slot.own === true]))}`;
}

/** The pattern and slot bookkeeping of `template` (see {@link LineTemplate.learn}); undefined when a marker is absent or repeated. */
function compileShape(template: string, slots: Slots): CompiledShape | undefined {
  const cuts: { at: number; length: number; slot: number }[] = [];
  for (const [slot, { marker }] of slots.entries()) {
    const quoted = JSON.stringify(marker);
    const at = template.indexOf(quoted);
    if (at === -1 || template.indexOf(quoted, at + 1) !== -1) return undefined; // absent, or also in a constant part
    cuts.push({ at, length: quoted.length, slot });
  }
  cuts.sort((a, b) => a.at - b.at);
  // Up to and with each value's opening quote, a pattern for the value, from its closing quote on.
  let source = "^";
  let from = 0;
  const escapable: boolean[] = [];
  const own: boolean[] = [];
  const order: number[] = [];
  const kept: boolean[] = [];
  const leads: number[] = [];
  for (const cut of cuts) {
    source += escapeForPattern(template.slice(from, cut.at + 1));
    leads.push(cut.at + 1 - from);
    from = cut.at + cut.length - 1;
    const slot = slots[cut.slot]!;
    kept.push(slot.escapable || slot.keep !== false);
    if (slot.escapable) {
      source += `(${JSON_STRING_BODY})`;
    } else if (slot.keep !== false) {
      source += `(${PLAIN_STRING_BODY})`;
    } else {
      source += PLAIN_STRING_BODY;
      continue;
    }
    escapable.push(slot.escapable);
    own.push(slot.escapable && slot.own === true);
    order.push(cut.slot);
  }
  source += `${escapeForPattern(template.slice(from))}$`;
  leads.push(template.length - from);
  const single = cuts.length === 1 && order.length === 1 ? { head: cuts[0]!.at + 1, tail: template.length - from } : undefined;
  return { pattern: new RegExp(source), escapable, own, order, kept, leads, single };
}
