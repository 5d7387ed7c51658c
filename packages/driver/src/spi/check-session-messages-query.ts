import { InvalidOptionError, checkOptions, optionChecks } from "@adaptor/errors";
import { DEFAULT_MESSAGE_PAGE_LIMIT, MAX_MESSAGE_PAGE_LIMIT, type SessionMessagesQuery } from "./session-messages.js";

/** The subject of a refused `getSessionMessages` query. */
const SESSION_MESSAGES_QUERY = "getSessionMessages query";

const QUERY_SHAPE = {
  limit: optionChecks.integer(1, MAX_MESSAGE_PAGE_LIMIT),
  cursor: optionChecks.string({ nonEmpty: true }),
};

/** A checked {@link SessionMessagesQuery}: `limit` defaulted. */
export type CheckedSessionMessagesQuery = SessionMessagesQuery & { readonly limit: number };

/**
 * Checks the arguments of `agent.getSessionMessages(sessionId, query)` and returns a frozen
 * snapshot of the query with `limit` defaulted to 100. `undefined` and `null` mean the defaults.
 * @throws InvalidOptionError (subject `"getSessionMessages arguments"`, field `sessionId`) for a
 * session id that is not a non-empty string without NUL; (subject `"getSessionMessages query"`)
 * naming the field: a query that is not an object, an unknown key (with the closest known one
 * suggested), a `limit` outside [1, 1000], an empty `cursor`.
 */
export function checkSessionMessagesQuery(sessionId: unknown, query: unknown): CheckedSessionMessagesQuery {
  if (typeof sessionId !== "string" || sessionId === "" || sessionId.includes("\0"))
    throw new InvalidOptionError({
      subject: "getSessionMessages arguments",
      field: "sessionId",
      reason: `must be a non-empty string without NUL, got ${typeof sessionId === "string" ? JSON.stringify(sessionId) : typeof sessionId}`,
    });
  const checked = checkOptions<SessionMessagesQuery>(SESSION_MESSAGES_QUERY, query, QUERY_SHAPE, { allowNull: true });
  return Object.freeze({ ...checked, limit: checked.limit ?? DEFAULT_MESSAGE_PAGE_LIMIT });
}
