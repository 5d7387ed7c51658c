/**
 * What the driver keeps in a thread checkpoint's `data`: the id (`uuid`) of the last conversation
 * message of the committed turn. A later turn resumes at exactly that message
 * (`--resume <session> --resume-session-at <id>`), so whatever the CLI appended to the session
 * after it (a failed, cancelled or denied turn) is not part of the conversation.
 */
export interface ClaudeCheckpointData {
  readonly lastMessageId: string;
}

/** The CLI's message ids are UUIDs; anything else never reaches its argv. */
const MESSAGE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The checkpoint data for a committed turn ending at `lastMessageId`. */
export function checkpointData(lastMessageId: string): ClaudeCheckpointData {
  return { lastMessageId };
}

/** Reads checkpoint data back; undefined for data this driver did not write (or none). */
export function readCheckpointData(data: unknown): ClaudeCheckpointData | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const id = (data as { lastMessageId?: unknown }).lastMessageId;
  return typeof id === "string" && MESSAGE_ID.test(id) ? { lastMessageId: id } : undefined;
}
