import { InvalidOptionError } from "@adaptor/errors";

/**
 * A `listSessions` or `getSessionMessages` cursor holding `position` (a JSON value: where a
 * driver's listing or read stands):
 * opaque to the host, the base64url of its JSON text. Read back with {@link decodeSessionCursor}.
 */
export function encodeSessionCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position), "utf8").toString("base64url");
}

/**
 * The position a cursor of {@link encodeSessionCursor} holds, as `read` takes it: `read` gets the
 * decoded JSON value (`undefined` for a cursor that is not base64url JSON) and returns the
 * position, or `undefined` for a value its listing never gives.
 * @param listing - who gives the cursors, for the refusal, e.g. `"a Claude Code session listing"`.
 * @param subject - the query the cursor came in, for the refusal; default `"listSessions query"`
 * (a read of messages: `"getSessionMessages query"`).
 * @throws InvalidOptionError (subject `subject`, field `cursor`, reason `is not a cursor <listing>
 * gave`) when `read` returns `undefined`.
 */
export function decodeSessionCursor<T>(
  cursor: string,
  read: (value: unknown) => T | undefined,
  listing: string,
  subject = "listSessions query",
): T {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    value = undefined;
  }
  const position = read(value);
  if (position === undefined) throw new InvalidOptionError({ subject, field: "cursor", reason: `is not a cursor ${listing} gave` });
  return position;
}
