import { InvalidSessionKeyError } from "../errors/invalid-session-key-error.js";

/** Longest session key, in characters (all of them ASCII). */
export const MAX_SESSION_KEY_LENGTH = 200;

const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The reason `key` is not a session key, or undefined when it is one. A session key is 1 to
 * {@link MAX_SESSION_KEY_LENGTH} characters of `A-Z a-z 0-9 . _ -`, starting with a letter or digit,
 * so it is always one plain file name: no `..`, no path separator, no NUL, never absolute, never
 * hidden. Keys are compared exactly; on a case-insensitive file system keys that differ only in
 * case name the same log, so prefer lower case.
 */
export function sessionKeyProblem(key: unknown): string | undefined {
  if (typeof key !== "string") return `must be a string, got ${key === null ? "null" : typeof key}`;
  if (key.length === 0) return "is empty";
  if (key.length > MAX_SESSION_KEY_LENGTH) return `is longer than ${MAX_SESSION_KEY_LENGTH} characters (${key.length})`;
  if (key.includes("\0")) return "contains a NUL character";
  if (key.includes("/") || key.includes("\\")) return "contains a path separator";
  if (key.includes("..")) return 'contains ".."';
  if (!KEY_PATTERN.test(key)) {
    if (!/^[A-Za-z0-9]/.test(key)) return "must start with a letter or digit";
    const bad = [...key].find((c) => !/[A-Za-z0-9._-]/.test(c)) ?? "";
    return `contains ${JSON.stringify(bad)}; only A-Z a-z 0-9 . _ - are allowed`;
  }
  return undefined;
}

/**
 * Checks a session key (rules in {@link sessionKeyProblem}) and returns it.
 * @throws InvalidSessionKeyError (`ErrInvalidSessionKey`) naming the rule it breaks.
 */
export function checkSessionKey(key: unknown): string {
  const problem = sessionKeyProblem(key);
  if (problem !== undefined) throw new InvalidSessionKeyError(key, problem);
  return key as string;
}
