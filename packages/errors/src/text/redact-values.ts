/** How each value may be written in a text besides as it is: what {@link redactValues} also replaces. */
interface ValueForms {
  /** The value as it is, URL-encoded (`encodeURIComponent`), and in base64 (padded, unpadded, URL-safe): each distinct. */
  readonly exact: readonly string[];
  /** The value in lower case, for a case-insensitive search; undefined when it has no cased letter. */
  readonly lower: string | undefined;
  /** The value matched in any case (its characters escaped); undefined with {@link lower}. */
  readonly anyCase: RegExp | undefined;
  /**
   * The value as written inside a JSON string, in any case: each character as it is, as its
   * `\uXXXX` escape (hex digits in either case), or as its short escape (`\/`, `\"`, `\\`, `\n`…),
   * so that `a\/b`, `a\u002fb` and `a\u002Fb` all match `a/b`.
   */
  readonly jsonEscaped: RegExp;
}

/** The short escapes a JSON string may use for a character (`\/` is optional; PHP writes it). */
const JSON_SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  "\\": "\\\\",
  "/": "\\/",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/** `text` as a regular expression source matching it literally, each code unit as a `\uXXXX` escape. */
function literalSource(text: string): string {
  let source = "";
  for (let i = 0; i < text.length; i++) source += `\\u${text.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return source;
}

/** A pattern matching `value` in any case as a JSON encoder may write it inside a string. */
function jsonEscapedPattern(value: string): RegExp {
  let source = "";
  // Code unit by code unit: a JSON encoder escapes a character outside the BMP as two `\uXXXX`.
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    const char = value.charAt(i);
    // The escape `\uXXXX` (the flag `i` lets its hex digits be in either case).
    const alternatives = [`\\\\u${unit.toString(16).padStart(4, "0")}`];
    const short = JSON_SHORT_ESCAPES[char];
    if (short !== undefined) alternatives.push(literalSource(short));
    // The character itself, unless JSON requires it escaped (a quote, a backslash, a control character).
    if (unit >= 0x20 && char !== '"' && char !== "\\") alternatives.push(literalSource(char));
    source += `(?:${alternatives.join("|")})`;
  }
  return new RegExp(source, "gi");
}

/** The forms of values seen lately (a host has a few secrets; cleared past {@link FORMS_KEPT}). */
const formsSeen = new Map<string, ValueForms>();
const FORMS_KEPT = 256;

function formsOf(value: string): ValueForms {
  let forms = formsSeen.get(value);
  if (forms) return forms;
  const bytes = Buffer.from(value, "utf8");
  const base64 = bytes.toString("base64");
  let encoded = value;
  try {
    encoded = encodeURIComponent(value);
  } catch {
    // A lone surrogate has no URL encoding: nothing can hold it in that form.
  }
  const exact = [...new Set([value, encoded, base64, base64.replace(/=+$/, ""), bytes.toString("base64url")])].filter(
    (form) => form !== "",
  );
  const lower = value.toLowerCase();
  const cased = lower !== value.toUpperCase();
  forms = {
    // Longest first, so a form that contains another is replaced whole.
    exact: exact.sort((a, b) => b.length - a.length),
    lower: cased ? lower : undefined,
    anyCase: cased ? new RegExp(value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "giu") : undefined,
    jsonEscaped: jsonEscapedPattern(value),
  };
  if (formsSeen.size >= FORMS_KEPT) formsSeen.clear();
  formsSeen.set(value, forms);
  return forms;
}

/** What the SDK writes in place of a credential it redacts, everywhere it redacts one. */
export const REDACTED = "[redacted]";

/**
 * `text` with every occurrence of each of `values` replaced by `marker`: the values of
 * credentials the host knows (its secret environment variables) never leave it in a message or
 * stored text. Each value is found as it is, in any letter case, URL-encoded
 * (`encodeURIComponent`), base64-encoded (standard, unpadded or URL-safe, when the text holds the
 * value's encoding on its own) and as a JSON string writes it (any character as its `\uXXXX`
 * escape, `/` as `\/`, a quote or backslash escaped: a remote's JSON body echoing it). Empty values are skipped (they would match everywhere).
 * @param marker what replaces each occurrence; default {@link REDACTED}.
 */
export function redactValues(text: string, values: readonly string[], marker = REDACTED): string {
  let out = text;
  let lower: string | undefined;
  for (const value of values) {
    if (value === "") continue;
    const forms = formsOf(value);
    for (const form of forms.exact) {
      if (out.includes(form)) {
        out = out.split(form).join(marker);
        lower = undefined;
      }
    }
    if (forms.lower === undefined || forms.anyCase === undefined) continue;
    lower ??= out.toLowerCase();
    if (lower.includes(forms.lower)) {
      out = out.replace(forms.anyCase, () => marker);
      lower = undefined;
    }
  }
  // A value inside a JSON text may be written with escapes (`\/`, `\u002b`): looked for only when
  // the text holds an escape.
  if (!out.includes("\\")) return out;
  for (const value of values) {
    if (value === "") continue;
    out = out.replace(formsOf(value).jsonEscaped, () => marker);
  }
  return out;
}
