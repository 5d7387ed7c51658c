import { isAbsolute } from "node:path";
import { InvalidOptionError, checkOptions, optionChecks } from "@adaptor/errors";
import { DEFAULT_SESSION_PAGE_LIMIT, MAX_SESSION_PAGE_LIMIT, type ListSessionsQuery } from "./session-list.js";

const SUBJECT = "listSessions query";

const QUERY_SHAPE = {
  cwd: optionChecks.string({ nonEmpty: true }),
  limit: optionChecks.integer(1, MAX_SESSION_PAGE_LIMIT),
  cursor: optionChecks.string({ nonEmpty: true }),
};

/** A checked {@link ListSessionsQuery}: `limit` defaulted. */
export type CheckedListSessionsQuery = ListSessionsQuery & { readonly limit: number };

/**
 * Checks the query of `agent.listSessions(query)` and returns a frozen snapshot with `limit`
 * defaulted to 100. `undefined` and `null` mean the defaults.
 * @throws InvalidOptionError (subject `"listSessions query"`) naming the field: a query that is not
 * an object, an unknown key (with the closest known one suggested), a `cwd` that is empty, not
 * absolute or holds NUL, a `limit` outside [1, 1000], an empty `cursor`.
 */
export function checkListSessionsQuery(query: unknown): CheckedListSessionsQuery {
  const checked = checkOptions<ListSessionsQuery>(SUBJECT, query, QUERY_SHAPE, { allowNull: true });
  if (checked.cwd !== undefined && !isAbsolute(checked.cwd))
    throw new InvalidOptionError({
      subject: SUBJECT,
      field: "cwd",
      reason: `must be an absolute path, got ${JSON.stringify(checked.cwd)}`,
    });
  return Object.freeze({ ...checked, limit: checked.limit ?? DEFAULT_SESSION_PAGE_LIMIT });
}
