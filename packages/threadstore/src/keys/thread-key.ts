import { InvalidThreadKeyError } from "../errors/invalid-thread-key-error.js";

/** Longest thread key, in bytes of its UTF-8 encoding: 1024. */
export const MAX_THREAD_KEY_BYTES = 1024;

const LONE_SURROGATE = /\p{Surrogate}/u;
/** JavaScript's whitespace (`\s`: ASCII spaces and line ends, NBSP, U+3000, BOM, ...). */
const WHITESPACE_ONLY = /^\s+$/u;
/** C0 controls, DEL and C1 controls (Unicode category Cc). */
const CONTROL = /\p{Cc}/u;
/** The bidi embeddings and overrides (U+202A–U+202E) and isolates (U+2066–U+2069). */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/u;

/**
 * Why `key` is not a valid thread key, or `undefined` when it is. The rules, the same for every
 * store and checked before any store or CLI is touched:
 *
 * - well-formed Unicode: no lone UTF-16 surrogate (a high surrogate not followed by a low one, or
 *   a low one not preceded by a high one). Such keys are what `key.slice(0, n)` through an emoji
 *   produces, and some databases would silently store them as U+FFFD, folding distinct keys into one;
 * - no NUL (U+0000);
 * - not whitespace only (`" "`, `"\t\n"`, `"\u00a0"`);
 * - no control character: C0 (U+0000–U+001F), DEL (U+007F) or C1 (U+0080–U+009F): a line break or
 *   an escape sequence in a key breaks logs, listings and terminals that show it;
 * - no bidi embedding, override or isolate (U+202A–U+202E, U+2066–U+2069), which make a key
 *   display as another one;
 * - at most {@link MAX_THREAD_KEY_BYTES} (1024) bytes of UTF-8.
 *
 * Everything else is a key, compared code unit for code unit: no Unicode normalisation (the NFC
 * `"caf\u00e9"` and the NFD `"cafe\u0301"` are two keys), no case folding, no trimming
 * (`"a b"`, `"a\u00a0b"` and `"a "` are distinct; only a key of whitespace alone is refused). U+FFFD itself is an ordinary character.
 * The empty string and non-strings are programmer errors (`TypeError`, see {@link checkThreadKey}).
 */
export function threadKeyProblem(key: string): string | undefined {
  // Each UTF-16 unit takes at least one UTF-8 byte: a longer string cannot fit, and is not scanned.
  if (key.length > MAX_THREAD_KEY_BYTES) return `longer than ${MAX_THREAD_KEY_BYTES} bytes of UTF-8 (${key.length} UTF-16 units)`;
  const nul = key.indexOf("\0");
  if (nul !== -1) return `contains NUL (U+0000) at index ${nul}`;
  const lone = LONE_SURROGATE.exec(key);
  if (lone) return `contains a lone UTF-16 surrogate at index ${lone.index} (not well-formed Unicode)`;
  if (WHITESPACE_ONLY.test(key)) return "is whitespace only";
  const control = CONTROL.exec(key);
  if (control) return `contains the control character ${codePoint(control[0])} at index ${control.index}`;
  const bidi = BIDI_CONTROL.exec(key);
  if (bidi) return `contains the bidi control ${codePoint(bidi[0])} at index ${bidi.index}`;
  const bytes = Buffer.byteLength(key, "utf8");
  if (bytes > MAX_THREAD_KEY_BYTES) return `longer than ${MAX_THREAD_KEY_BYTES} bytes of UTF-8 (${bytes} bytes)`;
  return undefined;
}

/**
 * Checks a thread key against the key rules (see {@link threadKeyProblem}). The `Agent` runs it
 * wherever it takes a key (`thread`, `newThread`, `fork`), and every store runs it on every key
 * and lease target it is given (`checkLeaseArgs`, `checkFinalizeRequest`, `checkResolveQuery`,
 * `checkLease`); custom stores should too.
 * @param what - how the key is named in the messages, e.g. `"acquireLease: target"`. Default `"thread key"`.
 * @throws TypeError when `key` is not a string or is empty (a programmer error);
 * InvalidThreadKeyError (matches `ErrInvalidThreadKey`) when it breaks a key rule.
 */
export function checkThreadKey(key: unknown, what = "thread key"): asserts key is string {
  if (typeof key !== "string" || key === "") throw new TypeError(`${what} must be a non-empty string`);
  const problem = threadKeyProblem(key);
  if (problem !== undefined) throw new InvalidThreadKeyError(key, problem);
}

/** `U+XXXX` for a one-unit character. */
function codePoint(char: string): string {
  return `U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
}
