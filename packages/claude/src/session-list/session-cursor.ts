import { decodeSessionCursor, encodeSessionCursor } from "@adaptor/driver/kit";

/** Where a Claude session listing stands: the last transcript a page examined, in the listing's order. */
export interface ListingPosition {
  /** The transcript's modification time, in ms since the epoch (fractions kept). */
  readonly modifiedMs: number;
  /** Its session id. */
  readonly sessionId: string;
  /** Its project folder's name. */
  readonly folder: string;
}

/**
 * The listing's order: most recently modified first, then by session id, then by folder, so that
 * every transcript has one place and a cursor resumes right after it, even when others were
 * written meanwhile (a transcript written after the cursor was given moves up, past the cursor,
 * and is not listed again on later pages).
 */
export function comparePositions(a: ListingPosition, b: ListingPosition): number {
  if (a.modifiedMs !== b.modifiedMs) return b.modifiedMs - a.modifiedMs;
  if (a.sessionId !== b.sessionId) return a.sessionId < b.sessionId ? -1 : 1;
  return a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0;
}

/** The cursor of `position`: opaque to the host (see `encodeSessionCursor`). */
export function encodeCursor(position: ListingPosition): string {
  return encodeSessionCursor([position.modifiedMs, position.sessionId, position.folder]);
}

/** The position a cursor of {@link encodeCursor} holds, else `undefined`. */
function readPosition(value: unknown): ListingPosition | undefined {
  if (
    !Array.isArray(value) ||
    value.length !== 3 ||
    typeof value[0] !== "number" ||
    !Number.isFinite(value[0]) ||
    typeof value[1] !== "string" ||
    typeof value[2] !== "string"
  )
    return undefined;
  return { modifiedMs: value[0], sessionId: value[1], folder: value[2] };
}

/**
 * The position a cursor of {@link encodeCursor} names.
 * @throws InvalidOptionError (subject `"listSessions query"`, field `cursor`) for anything else.
 */
export function decodeCursor(cursor: string): ListingPosition {
  return decodeSessionCursor(cursor, readPosition, "a Claude Code session listing");
}
