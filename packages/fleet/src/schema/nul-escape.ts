import type { JsonValue } from "@adaptor/sessionrecorder";

/**
 * PostgreSQL's `text` and `jsonb` cannot hold U+0000, which a prompt, a text part or a run option
 * such as `metadata` may hold (it travels inside JSON). A stored value holding one is escaped: in
 * each of its strings and keys U+E000 (a private-use character) becomes U+E000 U+E000 and U+0000
 * becomes U+E000 "0", and the run's stored options carry {@link NUL_ESCAPED_KEY}, so a reader
 * unescapes exactly the runs written this way. A worker of a version before the escape finds the
 * key an unknown run option and refuses the run (a typed verdict) instead of running altered text.
 */
export const NUL_ESCAPED_KEY = "fleetEscapedNul";

const ESCAPE = "\uE000";

/** True when `value` holds U+0000 in a string or a key anywhere. */
export function holdsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\0");
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return value.some(holdsNul);
  return Object.entries(value).some(([key, item]) => key.includes("\0") || holdsNul(item));
}

/** `value` with every string and key escaped (see {@link NUL_ESCAPED_KEY}). */
export function escapeNul<T>(value: T): T {
  return map(value, (text) => text.replace(/[\0\uE000]/g, (c) => (c === "\0" ? `${ESCAPE}0` : `${ESCAPE}${ESCAPE}`)));
}

/** The inverse of {@link escapeNul}. */
export function unescapeNul<T>(value: T): T {
  return map(value, (text) => text.replace(/\uE000([0\uE000])/g, (_, c: string) => (c === "0" ? "\0" : ESCAPE)));
}

function map<T>(value: T, text: (s: string) => string): T {
  if (typeof value === "string") return text(value) as T;
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => map(item, text)) as T;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [text(key), map(item as JsonValue, text)])) as T;
}

/** What a run is stored with: its text, parts, options and resume, the values the runs table keeps as text and jsonb. */
export interface StoredInput {
  readonly prompt: string;
  readonly promptParts: readonly JsonValue[] | null;
  readonly options: Record<string, JsonValue>;
  readonly resume: unknown;
}

/** The run's input as it is written: escaped and marked when it holds U+0000 anywhere, as it is otherwise. */
export function writtenInput<T extends StoredInput>(input: T): T {
  if (!holdsNul(input)) return input;
  const escaped = escapeNul(input);
  return { ...escaped, options: { ...escaped.options, [NUL_ESCAPED_KEY]: true } };
}

/** The run's input as it was submitted, from a row {@link writtenInput} wrote. */
export function readInput<T extends StoredInput>(input: T): T {
  if (input.options[NUL_ESCAPED_KEY] !== true) return input;
  const { [NUL_ESCAPED_KEY]: _marker, ...options } = input.options;
  return unescapeNul({ ...input, options });
}

/**
 * A JSON object as it is written to a `jsonb` column: escaped and marked with
 * {@link NUL_ESCAPED_KEY} when it holds U+0000 anywhere, as it is otherwise (arrays and scalars
 * are left as they are).
 */
export function writtenJson<T>(value: T): T {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !holdsNul(value)) return value;
  return { ...escapeNul(value), [NUL_ESCAPED_KEY]: true };
}

/** A JSON value as it was before {@link writtenJson}. */
export function readJson<T>(value: T): T {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  if ((value as Record<string, unknown>)[NUL_ESCAPED_KEY] !== true) return value;
  const { [NUL_ESCAPED_KEY]: _marker, ...rest } = value as Record<string, unknown>;
  return unescapeNul(rest) as T;
}
