/**
 * True when `message` names a session (`session_id`, non-empty) and it is not `sessionId`, the
 * session the turn runs in: a misbehaving CLI's line of another conversation, never this turn's
 * output. A line without a session id, or a turn whose session is not known yet, is not judged.
 */
export function ofOtherSession(message: Record<string, unknown>, sessionId: string | undefined): boolean {
  const named = message.session_id;
  return sessionId !== undefined && typeof named === "string" && named !== "" && named !== sessionId;
}
