import { InvalidOptionError } from "@adaptor/errors";
import { MAX_SESSION_TAG_LENGTH, MAX_SESSION_TITLE_LENGTH } from "./session-info.js";

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
 * Checks the session id of `agent.getSessionInfo`, `agent.renameSession` and `agent.tagSession`
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
