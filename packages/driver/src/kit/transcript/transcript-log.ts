import type { TranscriptItem } from "../../spi/response.js";

/** Kinds of the text-only items a {@link TranscriptLog} keeps packed. */
export type PackedTextKind = "assistant" | "thinking";

/** Consecutive texts of one kind, joined into one string; `ends[i]` is where text `i` ends in it. */
interface PackedRun {
  readonly kind: PackedTextKind;
  readonly joined: string;
  readonly ends: Uint32Array;
}

/** Texts packed per run: one string and one offset array per this many items at most. */
const RUN_SIZE = 256;
/** A run is also packed once its texts reach this many UTF-16 code units (so a joined string stays small). */
const RUN_UNITS = 1 << 20;

/**
 * An append-only transcript for a turn that may hold very many items, e.g. `codex exec --json`,
 * which makes one assistant item per completed agent message. A text-only item (`{ kind, text }`
 * of an assistant message or a thinking block, {@link text}) is not kept as an object: runs of
 * such texts are joined into one string with an offset array (about the text's bytes plus 4 per
 * item, instead of an object, a string and an array slot each), and the items are made only when
 * {@link items} is first read. Any other item ({@link push}) is kept as given, frozen.
 *
 * {@link items} gives exactly the items in the order they were added: each text item is a frozen
 * `{ kind, text }` with the text as given (the same UTF-16 code units), each other item the frozen
 * object pushed. The list is built once and kept; adding an item afterwards builds it again on
 * the next read.
 */
export class TranscriptLog {
  /** Packed runs and pushed items, in order. */
  #parts: (PackedRun | TranscriptItem)[] = [];
  /** Texts of the run being filled, not yet joined. */
  #texts: string[] = [];
  #units = 0;
  #kind: PackedTextKind = "assistant";
  #length = 0;
  #items: readonly TranscriptItem[] | undefined;

  /** Items added so far. */
  get length(): number {
    return this.#length;
  }

  /** Adds a text-only item, `{ kind, text }`, kept packed until {@link items} is read. */
  text(kind: PackedTextKind, text: string): void {
    if (kind !== this.#kind) {
      this.#pack();
      this.#kind = kind;
    }
    this.#texts.push(text);
    this.#units += text.length;
    this.#length++;
    this.#items = undefined;
    if (this.#texts.length === RUN_SIZE || this.#units >= RUN_UNITS) this.#pack();
  }

  /** Adds `item` as it is, frozen (shallowly; freeze nested values first where they must not change). */
  push(item: TranscriptItem): void {
    this.#pack();
    this.#parts.push(Object.freeze(item));
    this.#length++;
    this.#items = undefined;
  }

  /** Every item in order, frozen, in a frozen array (made on the first read after an addition). */
  items(): readonly TranscriptItem[] {
    if (this.#items !== undefined) return this.#items;
    this.#pack();
    const out = new Array<TranscriptItem>(this.#length);
    let at = 0;
    for (const part of this.#parts) {
      if (!isRun(part)) {
        out[at++] = part;
        continue;
      }
      const { kind, joined, ends } = part;
      let from = 0;
      for (let i = 0; i < ends.length; i++) {
        const to = ends[i]!;
        out[at++] = Object.freeze({ kind, text: joined.slice(from, to) });
        from = to;
      }
    }
    this.#items = Object.freeze(out);
    return this.#items;
  }

  /** Joins the run being filled, if any. */
  #pack(): void {
    const texts = this.#texts;
    if (texts.length === 0) return;
    const ends = new Uint32Array(texts.length);
    let end = 0;
    for (let i = 0; i < texts.length; i++) {
      end += texts[i]!.length;
      ends[i] = end;
    }
    this.#parts.push({ kind: this.#kind, joined: texts.join(""), ends });
    this.#texts = [];
    this.#units = 0;
  }
}

function isRun(part: PackedRun | TranscriptItem): part is PackedRun {
  return (part as Partial<PackedRun>).ends !== undefined;
}
