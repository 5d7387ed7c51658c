import { InvalidOptionError } from "@adaptor/errors";
import { MAX_MESSAGE_ID_LENGTH, MAX_SESSION_TAG_LENGTH, MAX_SESSION_TITLE_LENGTH } from "./session-info.js";

/** Whether `text` holds a control character (C0, DEL, C1) or a line or paragraph separator: never part of a title or tag. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x20 || (unit >= 0x7f && unit <= 0x9f) || unit === 0x2028 || unit === 0x2029) return true;
  }
  return false;
}

function refuse(subject: string, field: string, reason: string): never {
  throw new InvalidOptionError({ subject, field, reason });
}

/**
 * Checks the session id of `agent.getSessionInfo`, `agent.renameSession`, `agent.tagSession` and
 * `agent.forkSession`
 * (subject `"<method> arguments"`): no CLI names a session with a path, so an id that could lead a
 * driver out of its session folder is refused before anything is read or written.
 * @throws InvalidOptionError (field `sessionId`) for a value that is not a non-empty string, or
 * holds NUL, `/`, `\`, or is `.` or `..`.
 */
export function checkSessionId(method: string, sessionId: unknown): string {
  const subject = `${method} arguments`;
  if (typeof sessionId !== "string" || sessionId === "" || sessionId.includes("\0"))
    refuse(
      subject,
      "sessionId",
      `must be a non-empty string without NUL, got ${typeof sessionId === "string" ? JSON.stringify(sessionId) : typeof sessionId}`,
    );
  if (/[/\\]/.test(sessionId) || sessionId === "." || sessionId === "..")
    refuse(subject, "sessionId", `must be a session id, not a path, got ${JSON.stringify(sessionId)}`);
  return sessionId;
}

function checkLabel(subject: string, field: string, value: unknown, max: number): string {
  if (typeof value !== "string") refuse(subject, field, `must be a string, got ${value === null ? "null" : typeof value}`);
  const trimmed = value.trim();
  if (trimmed === "") refuse(subject, field, "must not be empty or only white space");
  if (hasControl(trimmed)) refuse(subject, field, "must not hold control characters or line breaks");
  if (trimmed.length > max) refuse(subject, field, `must be at most ${max} characters, got ${trimmed.length}`);
  return trimmed;
}

/**
 * Checks the title of `agent.renameSession(sessionId, title)` and returns it trimmed.
 * @throws InvalidOptionError (subject `"renameSession arguments"`, field `title`) for a value that
 * is not a string, is empty or white space only, holds a control character or line break, or is
 * longer than 500 code units once trimmed.
 */
export function checkSessionTitle(title: unknown): string {
  return checkLabel("renameSession arguments", "title", title, MAX_SESSION_TITLE_LENGTH);
}

/**
 * Checks the tag of `agent.tagSession(sessionId, tag)` and returns it trimmed, or `null` (clear the tag).
 * @throws InvalidOptionError (subject `"tagSession arguments"`, field `tag`) for a value that is
 * neither `null` nor a string, is empty or white space only, holds a control character or line
 * break, or is longer than 200 code units once trimmed.
 */
export function checkSessionTag(tag: unknown): string | null {
  return tag === null ? null : checkLabel("tagSession arguments", "tag", tag, MAX_SESSION_TAG_LENGTH);
}

/** The options of `agent.forkSession(sessionId, options)`, checked: `title` trimmed, `signal` left to the caller's check. */
export interface CheckedForkSessionOptions {
  readonly upToMessageId?: string;
  readonly title?: string;
  readonly signal?: unknown;
}

const FORK_OPTION_KEYS: ReadonlySet<string> = new Set(["upToMessageId", "title", "signal"]);

/**
 * Checks the options of `agent.forkSession(sessionId, options)` (subject `"forkSession
 * arguments"`) before anything is read or written, and returns them with `title` trimmed.
 * @throws InvalidOptionError naming the field: options that are not a plain object or hold an
 * unknown key; an `upToMessageId` that is not a non-empty string, holds a control character or line
 * break, or is longer than 200 code units; a `title` as `renameSession` refuses it.
 */
export function checkForkSessionOptions(options: unknown): CheckedForkSessionOptions {
  const subject = "forkSession arguments";
  if (typeof options !== "object" || options === null || Array.isArray(options))
    refuse(
      subject,
      "options",
      `must be an object, got ${options === null ? "null" : Array.isArray(options) ? "an array" : typeof options}`,
    );
  for (const key of Object.keys(options)) if (!FORK_OPTION_KEYS.has(key)) refuse(subject, key, "is not an option of forkSession");
  const { upToMessageId, title, signal } = options as Record<string, unknown>;
  if (upToMessageId !== undefined) {
    if (typeof upToMessageId !== "string" || upToMessageId === "")
      refuse(
        subject,
        "upToMessageId",
        `must be a non-empty string, got ${typeof upToMessageId === "string" ? '""' : typeof upToMessageId}`,
      );
    if (hasControl(upToMessageId)) refuse(subject, "upToMessageId", "must not hold control characters or line breaks");
    if (upToMessageId.length > MAX_MESSAGE_ID_LENGTH)
      refuse(subject, "upToMessageId", `must be at most ${MAX_MESSAGE_ID_LENGTH} characters, got ${upToMessageId.length}`);
  }
  return {
    ...(upToMessageId !== undefined ? { upToMessageId: upToMessageId as string } : {}),
    ...(title !== undefined ? { title: checkLabel(subject, "title", title, MAX_SESSION_TITLE_LENGTH) } : {}),
    ...(signal !== undefined ? { signal } : {}),
  };
}
