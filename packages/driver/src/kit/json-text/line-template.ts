import { closingQuote, hasRawControl } from "./json-string-scan.js";

/**
 * The shape of a driver's most frequent JSON line, learned from one such line the driver parsed,
 * so that the next lines of the same shape are read without `JSON.parse`: the line with some
 * string values cut out (the slots) and everything else (keys, their order, other values) kept as
 * constant text. {@link match} accepts a line only when it is those constants with valid JSON
 * strings in the slots (so the whole line is valid JSON and parses to the learned value with other
 * slot values), then {@link values} holds each slot's string as `JSON.parse` gives it. A refused
 * line is never partly read.
 */
export class LineTemplate {
  /** The constant parts: `parts[i]` comes before slot `i`, the last one ends the line. */
  readonly #parts: readonly string[];
  /** Per slot: true when it may hold escapes (decoded as `JSON.parse` does), false when it must be plain. */
  readonly #escapable: readonly boolean[];
  /** Per slot: whether its value is kept in {@link values} (an escapable one always is). */
  readonly #keep: readonly boolean[];
  /** Per slot: whether its value must be a string of its own, not a slice of the line. */
  readonly #own: readonly boolean[];
  /** The slots' values after the last accepted line, in the order of the markers given to {@link learn}. */
  readonly values: string[];
  /** For each slot in line order, its index in {@link values}. */
  readonly #order: readonly number[];

  private constructor(
    parts: readonly string[],
    escapable: readonly boolean[],
    keep: readonly boolean[],
    own: readonly boolean[],
    order: readonly number[],
  ) {
    this.#parts = parts;
    this.#own = own;
    this.#escapable = escapable;
    this.#keep = keep;
    this.#order = order;
    this.values = order.map(() => "");
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
    const cuts: { at: number; length: number; slot: number }[] = [];
    for (const [slot, { marker }] of slots.entries()) {
      const quoted = JSON.stringify(marker);
      const at = template.indexOf(quoted);
      if (at === -1 || template.indexOf(quoted, at + 1) !== -1) return undefined; // absent, or also in a constant part
      cuts.push({ at, length: quoted.length, slot });
    }
    cuts.sort((a, b) => a.at - b.at);
    const parts: string[] = [];
    let from = 0;
    for (const cut of cuts) {
      parts.push(template.slice(from, cut.at + 1)); // up to and with the value's opening quote
      from = cut.at + cut.length - 1; // the value's closing quote starts the next part
    }
    parts.push(template.slice(from));
    return new LineTemplate(
      parts,
      cuts.map((cut) => slots[cut.slot]!.escapable),
      cuts.map((cut) => slots[cut.slot]!.keep !== false),
      cuts.map((cut) => slots[cut.slot]!.own === true),
      cuts.map((cut) => cut.slot),
    );
  }

  /** True when `line` has this shape; {@link values} then holds its slot values. */
  match(line: string): boolean {
    const parts = this.#parts;
    const slots = parts.length - 1;
    let at = 0;
    for (let slot = 0; slot < slots; slot++) {
      const part = parts[slot]!;
      if (!hasAt(line, part, at)) return false;
      const start = at + part.length;
      const quote = line.indexOf('"', start);
      if (quote === -1) return false;
      let end = quote;
      if (this.#escapable[slot]) {
        let value: string;
        const backslash = line.indexOf("\\", start);
        const escaped = backslash !== -1 && backslash < quote;
        if (escaped) end = closingQuote(line, start);
        if (end === -1 || hasRawControl(line, start, end)) return false;
        value = line.slice(start, end);
        // V8 copies a slice this short; a longer one points into the line unless parsed anew.
        if (escaped || (this.#own[slot] && end - start > SHORT_SLICE)) {
          try {
            value = JSON.parse(`"${value}"`) as string;
          } catch {
            return false; // a bad escape: not JSON, the caller's parse says so
          }
        }
        this.values[this.#order[slot]!] = value;
      } else {
        if (!plainSpan(line, start, end)) return false;
        if (this.#keep[slot]) this.values[this.#order[slot]!] = line.slice(start, end);
      }
      at = end;
    }
    const last = parts[slots]!;
    return at + last.length === line.length && hasAt(line, last, at);
  }
}

const QUOTE = 0x22;
/** The longest slice V8 copies rather than pointing into its string (`SlicedString::kMinLength` is 13). */
const SHORT_SLICE = 12;
const BACKSLASH = 0x5c;

/**
 * True when `key` occurs in `text` at `at`. Neither `startsWith` nor a slice and `===`: a framed
 * line is usually a slice of a larger string, which those compare far more slowly than
 * `lastIndexOf` from `at` (no new string; at offset 0 it looks at that one place only).
 */
function hasAt(text: string, key: string, at: number): boolean {
  return text.length >= at + key.length && text.lastIndexOf(key, at) === at;
}

/** No quote, backslash or control character between `from` and `to`. */
function plainSpan(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === QUOTE || c === BACKSLASH) return false;
  }
  return true;
}
