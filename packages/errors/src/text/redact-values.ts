/** How each value may be written in a text besides as it is: what {@link redactValues} also replaces. */
interface ValueForms {
  /**
   * The value as it is and its base64 forms (standard and URL-safe): the whole encoding (padded
   * and unpadded) and, for each of the three byte offsets the value may start at inside encoded
   * text, the stable middle of its encoding there; each distinct, longest first.
   */
  readonly exact: readonly string[];
  /**
   * The base64 forms among {@link exact} (all but the value itself), longest first: also looked
   * for as a URL, a JSON string or a wrapped text may write them (see `readBase64Stretch`).
   */
  readonly base64: readonly string[];
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

/** The `%XX` escape of `code` (a byte) as a pattern: hex digits in either case, the `%` itself also escaped (`%25XX`: encoded twice). */
function percentSource(code: number): string {
  const hex = [...code.toString(16).padStart(2, "0")].map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit));
  return `%(?:25)?${hex.join("")}`;
}

/**
 * A character of a stretch of text a written base64 form lies in (the stretch is a run of them): base64 and URL-safe base64 characters, `%`
 * escapes, JSON escapes (a backslash and what follows it) and line breaks. A written form never
 * reaches outside the stretch it starts in.
 */
const BASE64_WRITTEN_STRETCH = /[A-Za-z0-9+/=_%\\\r\n-]/;

/**
 * What in a base64 stretch reads as something else: a line break (CRLF or LF, as it is or as a
 * JSON string writes it: `\r\n`, `\n`), which reads as nothing, as MIME and PEM wrap their lines;
 * `\/`, `\u002b` or `\u002f` (hex digits in either case), a JSON string's escapes of `/` and `+`;
 * a `%XX` or `%25XX` escape (encoded once or twice, hex digits in either case).
 */
const BASE64_WRITTEN_ESCAPE = /\r?\n|\\r\\n|\\n|\\\/|\\u002[bBfF]|%(?:25)?[0-9A-Fa-f]{2}/g;

/** The character an escape {@link BASE64_WRITTEN_ESCAPE} matched stands for ("" for a line break). */
function escapedChar(escape: string): string {
  if (escape.startsWith("%")) return String.fromCharCode(parseInt(escape.slice(-2), 16));
  if (escape === "\\/") return "/";
  if (escape.startsWith("\\u")) return /[bB]$/.test(escape) ? "+" : "/";
  return "";
}

/**
 * `stretch` (see {@link BASE64_WRITTEN_STRETCH}) read as a base64 text ({@link BASE64_WRITTEN_ESCAPE}):
 * its reading, and where each character read starts and ends in `stretch`. Linear in the stretch.
 */
class Base64Reading {
  readonly text: string;
  /** Pieces of the reading, in order: where each starts in the reading and in the stretch. */
  readonly #readAt: number[] = [];
  readonly #stretchAt: number[] = [];
  /** Length in the stretch of a piece that is one escape, 0 for a piece read as it is. */
  readonly #escapeLength: number[] = [];

  constructor(stretch: string) {
    let text = "";
    let plainFrom = 0;
    const piece = (read: string, at: number, escapeLength: number): void => {
      if (read === "") return;
      this.#readAt.push(text.length);
      this.#stretchAt.push(at);
      this.#escapeLength.push(escapeLength);
      text += read;
    };
    for (const match of stretch.matchAll(BASE64_WRITTEN_ESCAPE)) {
      piece(stretch.slice(plainFrom, match.index), plainFrom, 0);
      piece(escapedChar(match[0]), match.index, match[0].length);
      plainFrom = match.index + match[0].length;
    }
    piece(stretch.slice(plainFrom), plainFrom, 0);
    this.text = text;
  }

  /** Where the character read at `index` starts in the stretch, and where it ends. */
  span(index: number): { start: number; end: number } {
    // The last piece starting at or before `index`.
    let low = 0;
    let high = this.#readAt.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.#readAt[middle]! <= index) low = middle;
      else high = middle - 1;
    }
    const escapeLength = this.#escapeLength[low]!;
    const start = this.#stretchAt[low]! + (escapeLength > 0 ? 0 : index - this.#readAt[low]!);
    return { start, end: start + (escapeLength > 0 ? escapeLength : 1) };
  }
}

/**
 * `stretch` with each form of each of `values` (its base64 forms, longest first) replaced by
 * `marker` where the stretch reads as it ({@link Base64Reading}): leftmost first, the longest form
 * where several start at the same character; the values one after the other. A line break before a
 * form's first character or after its last is kept. Cost: one reading of the stretch (another
 * after each value found in it) and a search of the reading per form.
 */
function redactBase64Stretch(stretch: string, values: readonly (readonly string[])[], marker: string): string {
  if (!/[%\\\n]/.test(stretch)) return stretch;
  // Most stretches hold no form: their reading, without where each character came from, tells.
  const text = stretch.replace(BASE64_WRITTEN_ESCAPE, escapedChar);
  if (!values.some((forms) => forms.some((form) => text.includes(form)))) return stretch;
  let reading = new Base64Reading(stretch);
  for (const forms of values) {
    const next = forms.map((form) => reading.text.indexOf(form));
    let out = "";
    let kept = 0;
    let replaced = false;
    for (;;) {
      let found = -1;
      for (let i = 0; i < forms.length; i++) if (next[i]! >= 0 && (found < 0 || next[i]! < next[found]!)) found = i;
      if (found < 0) break;
      const first = next[found]!;
      const after = first + forms[found]!.length;
      out += stretch.slice(kept, reading.span(first).start) + marker;
      kept = reading.span(after - 1).end;
      replaced = true;
      for (let i = 0; i < forms.length; i++) if (next[i]! >= 0 && next[i]! < after) next[i] = reading.text.indexOf(forms[i]!, after);
    }
    if (!replaced) continue;
    stretch = out + stretch.slice(kept);
    reading = new Base64Reading(stretch);
  }
  return stretch;
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
    base64: exact.filter((form) => form !== value),
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
 * 5 bytes or more). Empty values are skipped (they would match everywhere). A value too long for its
 * URL-encoded or JSON-escaped pattern to run (about 10,000 characters or more) makes a text holding
 * an escape read `marker` whole: what could not be searched is not shown.
 *
 * Cost: linear in the text for each value, whatever the value's length: a search per plain or
 * base64 form; when the text holds an escape or a line break, one pass reading each stretch of
 * base64-like characters as the base64 it writes (escapes decoded, line breaks dropped) and a search
 * of that reading per base64 form, and a pattern each for the URL-encoded and JSON-escaped value
 * (its length in alternatives, not its base64 forms'). No pattern grows with the base64 forms: a
 * value of any length (a 4 KiB credential) is looked for without building one.
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
    const base64 = values.flatMap((value) => (value === "" ? [] : [formsOf(value).base64]));
    // A written form is never shorter than the form: a stretch shorter than the shortest holds none.
    const shortest = Math.min(...base64.flatMap((forms) => forms.map((form) => form.length)));
    if (Number.isFinite(shortest)) {
      // Whole stretches only (started where one starts), of the shortest form's length at least.
      const stretches = new RegExp(`(?<!${BASE64_WRITTEN_STRETCH.source})${BASE64_WRITTEN_STRETCH.source}{${shortest},}`, "g");
      out = out.replace(stretches, (stretch) => redactBase64Stretch(stretch, base64, marker));
    }
  }
  if (out.includes("%") || out.includes("+")) {
    for (const value of values) {
      if (value === "" || (!out.includes("%") && !value.includes(" "))) continue;
      const replaced = replaceOrUndefined(out, formsOf(value).urlEncoded, marker);
      if (replaced === undefined) return marker;
      out = replaced;
    }
  }
  // A value inside a JSON text may be written with escapes (`\/`, `\u002b`): looked for only when
  // the text holds an escape.
  if (!out.includes("\\")) return out;
  for (const value of values) {
    if (value === "") continue;
    const replaced = replaceOrUndefined(out, formsOf(value).jsonEscaped, marker);
    if (replaced === undefined) return marker;
    out = replaced;
  }
  return out;
}

/**
 * `text` with every match of `pattern` replaced by `marker`; undefined when the pattern cannot run
 * (V8 cannot compile one of tens of thousands of alternatives: a value of about 10,000 characters
 * or more), so the caller withholds the whole text rather than show what it could not search.
 */
function replaceOrUndefined(text: string, pattern: RegExp, marker: string): string | undefined {
  try {
    return text.replace(pattern, () => marker);
  } catch {
    return undefined;
  }
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
