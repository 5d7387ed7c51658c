import { InvalidOptionError } from "./invalid-option-error.js";

/** Why a string cannot be handed to a CLI: a lone UTF-16 surrogate, or a NUL character. */
export type StringFlawKind = "lone-surrogate" | "nul";

/** The first flaw found by {@link findStringFlaw}. */
export interface StringFlaw {
  /** What is wrong. */
  readonly kind: StringFlawKind;
  /** Index of the offending UTF-16 code unit. */
  readonly index: number;
  /** The offending code unit, e.g. `0xd800`. */
  readonly codeUnit: number;
}

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The first flaw of `text` that a CLI cannot carry, else `undefined`: a lone UTF-16 surrogate
 * (no UTF-8 encoding exists; it would be replaced by U+FFFD or break the CLI's JSON parser), and,
 * unless `allowNul`, a NUL character (argv, environment and paths end at NUL). Linear in the length.
 */
export function findStringFlaw(text: string, options: { readonly allowNul?: boolean } = {}): StringFlaw | undefined {
  const surrogate = LONE_SURROGATE.exec(text)?.index ?? -1;
  const nul = options.allowNul ? -1 : text.indexOf("\0");
  const index = surrogate === -1 ? nul : nul === -1 ? surrogate : Math.min(surrogate, nul);
  if (index === -1) return undefined;
  return { kind: index === nul ? "nul" : "lone-surrogate", index, codeUnit: text.charCodeAt(index) };
}

/**
 * A string refused because a CLI cannot carry it (see {@link findStringFlaw}); an
 * {@link InvalidOptionError} (matches `ErrInvalidOption`) that also says where and what. Nothing
 * is replaced: the caller fixes the text (for example cuts it at a code point boundary).
 */
export class MalformedStringError extends InvalidOptionError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.MalformedStringError");
  /** What is wrong. */
  readonly kind: StringFlawKind;
  /** Index of the offending UTF-16 code unit. */
  readonly index: number;

  constructor(subject: string, field: string, flaw: StringFlaw) {
    const unit = `U+${flaw.codeUnit.toString(16).toUpperCase().padStart(4, "0")}`;
    const what = flaw.kind === "nul" ? "a NUL character" : `a lone UTF-16 surrogate (${unit})`;
    super({ subject, field, reason: `holds ${what} at index ${flaw.index}, which a CLI cannot carry` });
    this.kind = flaw.kind;
    this.index = flaw.index;
  }
}

/**
 * Refuses a string a CLI cannot carry.
 * @param subject - what holds it, e.g. `"run"`.
 * @param field - its name, e.g. `"prompt"`.
 * @param options.allowNul - accept NUL (text sent inside JSON, such as a prompt). Default false.
 * @throws MalformedStringError naming `field`, the flaw and its index.
 */
export function assertWellFormedString(subject: string, field: string, text: string, options: { readonly allowNul?: boolean } = {}): void {
  const flaw = findStringFlaw(text, options);
  if (flaw) throw new MalformedStringError(subject, field, flaw);
}
