/** How each value may be written in a text besides as it is: what {@link redactValues} also replaces. */
interface ValueForms {
  /**
   * The value as it is and its base64 forms (standard and URL-safe): the whole encoding (padded
   * and unpadded) and, for each of the three byte offsets the value may start at inside encoded
   * text, the stable middle of its encoding there; each distinct, longest first.
   */
  readonly exact: readonly string[];
  /**
   * The base64 forms of {@link exact} as a URL, a JSON string or a wrapped text may write them:
   * any character also as its `%XX` escape, encoded once or twice (`%2B`, `%252B`, hex digits in
   * either case), `+` and `/` also as a JSON string may write them (`\/`, `\u002b`, `\u002f`), and
   * cut by line breaks (CRLF or LF, as they are or JSON-escaped) as MIME and PEM wrap their lines.
   * Undefined when the value has no base64 form besides itself.
   */
  readonly base64Written: RegExp | undefined;
  /** The value in lower case, for a case-insensitive search; undefined when it has no cased letter. */
  readonly lower: string | undefined;
  /** The value matched in any case (its characters escaped); undefined with {@link lower}. */
  readonly anyCase: RegExp | undefined;
  /**
   * The value as URL encoding may write it, in any case: each character as it is or as the
   * `%XX` escapes of its UTF-8 bytes (hex digits in either case), encoded once or twice (`%2F`,
   * `%252F`), a space also as `+` (or its escape); so that `a%2Fb`, `a%2fb`, `a%252Fb` and `%61/b`
   * all match `a/b`.
   */
  readonly urlEncoded: RegExp;
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

/** A pattern matching `value` in any case as URL encoding may write it (see {@link ValueForms.urlEncoded}). */
function urlEncodedPattern(value: string): RegExp {
  let source = "";
  for (const char of value) {
    const point = char.codePointAt(0)!;
    const alternatives = [literalSource(char)];
    // A lone surrogate has no URL encoding: nothing can hold it in that form.
    if (point < 0xd800 || point > 0xdfff) {
      alternatives.push([...Buffer.from(char, "utf8")].map((byte) => percentSource(byte)).join(""));
    }
    if (char === " ") alternatives.push(literalSource("+"), percentSource(0x2b));
    source += `(?:${alternatives.join("|")})`;
  }
  return new RegExp(source, "gi");
}

/**
 * Shortest middle of a shifted base64 encoding looked for: shorter runs of base64 characters
 * would turn up in unrelated encoded text (the whole encoding is always looked for).
 */
const MIN_BASE64_MIDDLE = 6;

/**
 * The base64 characters that encode `bytes` whatever bytes come before and after them, for each
 * of the three offsets (modulo 3) they may start at inside a longer encoded text: a character
 * holds 6 bits, so the ones that straddle a neighbouring byte are left out.
 */
function base64Middles(bytes: Buffer): string[] {
  const middles: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    // Characters whose 6 bits all lie within `bytes`, i.e. from bit 8·offset to bit 8·(offset + length).
    const middle = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    if (middle.length >= MIN_BASE64_MIDDLE) middles.push(middle);
  }
  return middles;
}

/** How a JSON string may also write the two base64 characters that are not letters or digits. */
const BASE64_JSON_ESCAPES: Readonly<Record<string, string>> = {
  "+": String.raw`|\\u002[bB]`,
  "/": String.raw`|\\\/|\\u002[fF]`,
};

/**
 * A line break that may cut a wrapped base64 text (MIME writes one every 76 characters, PEM every
 * 64): CRLF or LF, as it is or as a JSON string writes it (`\r\n`, `\n`).
 */
const BASE64_LINE_BREAK = String.raw`(?:\r?\n|(?:\\r)?\\n)?`;

/** The `%XX` escape of `code` (a byte) as a pattern: hex digits in either case, the `%` itself also escaped (`%25XX`: encoded twice). */
function percentSource(code: number): string {
  const hex = [...code.toString(16).padStart(2, "0")].map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit));
  return `%(?:25)?${hex.join("")}`;
}

/**
 * A pattern matching each of `forms` (base64 text, longest first) as a URL, a JSON string or a
 * wrapped text may write it: any character also as its `%XX` escape, once or twice encoded (hex
 * digits in either case), `+` and `/` also as a JSON string escapes them (`\/`, `\u002b`,
 * `\u002f`), and a line break ({@link BASE64_LINE_BREAK}) between any two characters.
 */
function base64WrittenPattern(forms: readonly string[]): RegExp | undefined {
  const sources = forms.map((form) =>
    [...form]
      .map((char) => `(?:${literalSource(char)}|${percentSource(char.charCodeAt(0))}${BASE64_JSON_ESCAPES[char] ?? ""})`)
      .join(BASE64_LINE_BREAK),
  );
  // Case-sensitive: base64 letters are not interchangeable (the escapes list both cases themselves).
  return sources.length > 0 ? new RegExp(sources.join("|"), "g") : undefined;
}

/** The forms of values seen lately (a host has a few secrets; cleared past {@link FORMS_KEPT}). */
const formsSeen = new Map<string, ValueForms>();
const FORMS_KEPT = 256;

function formsOf(value: string): ValueForms {
  let forms = formsSeen.get(value);
  if (forms) return forms;
  const bytes = Buffer.from(value, "utf8");
  const base64 = bytes.toString("base64");
  const base64Forms = [base64, base64.replace(/=+$/, ""), ...base64Middles(bytes)];
  const urlSafe = (form: string): string => form.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const exact = [...new Set([value, ...base64Forms, ...base64Forms.map(urlSafe)])].filter((form) => form !== "");
  const lower = value.toLowerCase();
  const cased = lower !== value.toUpperCase();
  forms = {
    // Longest first, so a form that contains another is replaced whole.
    exact: exact.sort((a, b) => b.length - a.length),
    base64Written: base64WrittenPattern(exact.filter((form) => form !== value)),
    lower: cased ? lower : undefined,
    anyCase: cased ? new RegExp(value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "giu") : undefined,
    urlEncoded: urlEncodedPattern(value),
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
 * stored text. Each value is found as it is, in any letter case, URL-encoded once or twice (any
 * of its characters as `%XX` escapes with hex digits in either case, or as `%25XX`; a space also
 * as `+`), base64-encoded (standard or URL-safe, padded or not, on its own or inside a longer
 * encoded text such as `{"token":"…"}`, `key=…` or a `data:` URL's payload, at whichever byte
 * offset it starts: there the characters that encode only the value's bytes are replaced, and the
 * one or two at each end that also encode a neighbouring byte are left; inside a URL or a JSON
 * string also with any of its characters URL-encoded once or twice, or its `+` and `/` written
 * `\/`, `\u002b` or `\u002f`; in a wrapped text also cut by line breaks, CRLF or LF, as they are or
 * JSON-escaped, as MIME and PEM wrap their lines) and as a JSON string writes it (any character
 * as its `\uXXXX` escape, `/` as `\/`, a quote or backslash escaped: a remote's JSON body echoing
 * it). A shifted base64 form is looked for only when it is at least 6 characters long (a value of
 * 5 bytes or more). Empty values are skipped (they would match everywhere).
 *
 * Cost: one pass over `text` per form (a search per plain or base64 form, and a pattern each for
 * the escaped forms when the text holds an escape or a line break), so linear in the text for each value.
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
  // A base64 form in a URL, a JSON string or a wrapped text may be written with escapes or cut
  // by line breaks, and a value in a URL may be written with `%XX` escapes or a space as `+`: each
  // looked for only when the text holds an escape, a line break or a `+`.
  if (out.includes("%") || out.includes("\\") || out.includes("\n")) {
    for (const value of values) {
      const pattern = value === "" ? undefined : formsOf(value).base64Written;
      if (pattern !== undefined) out = out.replace(pattern, () => marker);
    }
  }
  if (out.includes("%") || out.includes("+")) {
    for (const value of values) {
      if (value === "" || (!out.includes("%") && !value.includes(" "))) continue;
      out = out.replace(formsOf(value).urlEncoded, () => marker);
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

/**
 * Fewest characters of a cut value that {@link redactCutAtStart} and {@link redactCutAtEnd}
 * replace: a shorter piece would turn up in ordinary text.
 */
export const MIN_CUT_VALUE_CHARS = 8;

/**
 * The most characters, `MIN_CUT_VALUE_CHARS` or more, that `text` starts with (`atStart`) or ends
 * with, of one of `forms`, cut: the end of a form at the text's start, its beginning at the
 * text's end; never a whole form. 0 when there is none.
 */
function cutLength(text: string, forms: readonly string[], atStart: boolean): number {
  let longest = 0;
  for (const form of forms) {
    for (let length = Math.min(form.length - 1, text.length); length >= Math.max(MIN_CUT_VALUE_CHARS, longest + 1); length--) {
      const piece = atStart ? form.slice(form.length - length) : form.slice(0, length);
      if (atStart ? text.startsWith(piece) : text.endsWith(piece)) {
        longest = length;
        break;
      }
    }
  }
  return longest;
}

/**
 * `text`, the tail of a longer text (a bounded window of output), with the end of a value its
 * cut fell inside replaced by `marker`: when `text` starts with the last
 * {@link MIN_CUT_VALUE_CHARS} characters or more of one of `values` (as it is or one of its base64
 * forms, not the whole of it), those are replaced; the longest such end when several match. A
 * shorter end is left (it would match ordinary text). Cost: for each value's form, up to its
 * length in comparisons of up to its length at the text's start; none scan the text.
 * @param marker what replaces the cut value; default {@link REDACTED}.
 */
export function redactCutAtStart(text: string, values: readonly string[], marker = REDACTED): string {
  let longest = 0;
  for (const value of values) if (value !== "") longest = Math.max(longest, cutLength(text, formsOf(value).exact, true));
  return longest === 0 ? text : marker + text.slice(longest);
}

/**
 * `text`, the head of a longer text, with the beginning of a value its cut fell inside replaced by
 * `marker`: {@link redactCutAtStart} at the text's end (its last characters are the first
 * {@link MIN_CUT_VALUE_CHARS} or more of one of `values` or of one of its base64 forms).
 * @param marker what replaces the cut value; default {@link REDACTED}.
 */
export function redactCutAtEnd(text: string, values: readonly string[], marker = REDACTED): string {
  let longest = 0;
  for (const value of values) if (value !== "") longest = Math.max(longest, cutLength(text, formsOf(value).exact, false));
  return longest === 0 ? text : text.slice(0, text.length - longest) + marker;
}
