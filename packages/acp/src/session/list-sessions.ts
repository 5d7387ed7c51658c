import type { ListSessionsResponse } from "@agentclientprotocol/sdk";
import type { DriverListSessionsQuery, SessionPage, SessionSummary } from "@adaptor/driver";
import { decodeSessionCursor, encodeSessionCursor } from "@adaptor/driver/kit";

/**
 * Where a listing stands: the agent's cursor of the page being read (absent: its first page) and
 * how many of that page's sessions were given already. ACP's `session/list` has no page size, so
 * the driver cuts the agent's pages to the host's `limit`.
 */
interface Position {
  readonly agentCursor?: string;
  readonly offset: number;
}

function encode(position: Position): string {
  return encodeSessionCursor([position.agentCursor ?? null, position.offset]);
}

/** The position a cursor of {@link encode} holds, else `undefined`. */
function readPosition(value: unknown): Position | undefined {
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    !(value[0] === null || typeof value[0] === "string") ||
    !Number.isSafeInteger(value[1]) ||
    (value[1] as number) < 0
  )
    return undefined;
  return { ...(typeof value[0] === "string" ? { agentCursor: value[0] } : {}), offset: value[1] as number };
}

/** @throws InvalidOptionError (field `cursor`) for a cursor {@link encode} did not make. */
function decode(cursor: string): Position {
  return decodeSessionCursor(cursor, readPosition, "an ACP session listing");
}

/** One session of a `session/list` answer as listed, or `undefined` for an entry without a `sessionId`. */
function summary(info: ListSessionsResponse["sessions"][number]): SessionSummary | undefined {
  if (typeof info?.sessionId !== "string" || info.sessionId === "") return undefined;
  const updated = typeof info.updatedAt === "string" ? Date.parse(info.updatedAt) : Number.NaN;
  const title = typeof info.title === "string" && info.title.trim() !== "" ? info.title : undefined;
  return {
    sessionId: info.sessionId,
    ...(typeof info.cwd === "string" && info.cwd !== "" ? { cwd: info.cwd } : {}),
    ...(title !== undefined ? { title } : {}),
    ...(Number.isNaN(updated) ? {} : { updatedAt: new Date(updated) }),
  };
}

/**
 * The most `session/list` pages one listing reads: an agent answering page after page with no
 * session it can list still gives the host an answer, the cursor reached as its `nextCursor`.
 */
const MAX_AGENT_PAGES = 10;

/**
 * One page of an ACP agent's sessions through `session/list` (`list(cwd, agentCursor)` sends it):
 * the agent's own order and filter, its pages cut to `query.limit` (the protocol has no page size).
 * An entry without a `sessionId` is left out. At most {@link MAX_AGENT_PAGES} of the agent's pages
 * are read, the page then ending with the cursor reached; an agent `nextCursor` this listing
 * already read ends the listing (the agent would answer it again).
 * @throws InvalidOptionError (field `cursor`) for a cursor this listing did not give; what `list` throws.
 */
export async function listAcpSessions(
  query: DriverListSessionsQuery,
  list: (cwd: string | undefined, agentCursor: string | undefined) => Promise<ListSessionsResponse>,
): Promise<SessionPage> {
  let position = query.cursor !== undefined ? decode(query.cursor) : { offset: 0 };
  const read = new Set<string | undefined>([position.agentCursor]);
  const sessions: SessionSummary[] = [];
  for (;;) {
    const page = await list(query.cwd, position.agentCursor);
    const listed = (Array.isArray(page.sessions) ? page.sessions : []).map(summary).filter((s) => s !== undefined);
    const taken = listed.slice(position.offset, position.offset + query.limit - sessions.length);
    sessions.push(...taken);
    const end = position.offset + taken.length;
    const next = typeof page.nextCursor === "string" && page.nextCursor !== "" ? page.nextCursor : undefined;
    if (end < listed.length) return { sessions, skipped: [], nextCursor: encode({ ...position, offset: end }) };
    if (next === undefined || read.has(next)) return { sessions, skipped: [] };
    position = { agentCursor: next, offset: 0 };
    if (sessions.length === query.limit || read.size === MAX_AGENT_PAGES) return { sessions, skipped: [], nextCursor: encode(position) };
    read.add(next);
  }
}

/** The most `session/list` pages {@link findAcpSession} reads looking for one session. */
export const MAX_FIND_PAGES = 100;

/**
 * The session `sessionId` as an ACP agent lists it (`list(agentCursor)` sends `session/list`
 * without a `cwd`): the agent's pages in its order until one holds it, at most
 * {@link MAX_FIND_PAGES} of them; an agent `nextCursor` already read ends the search.
 * @returns its summary, or `undefined` when the pages read do not list it.
 * @throws what `list` throws.
 */
export async function findAcpSession(
  sessionId: string,
  list: (agentCursor: string | undefined) => Promise<ListSessionsResponse>,
): Promise<SessionSummary | undefined> {
  const read = new Set<string | undefined>();
  let cursor: string | undefined;
  while (read.size < MAX_FIND_PAGES && !read.has(cursor)) {
    read.add(cursor);
    const page = await list(cursor);
    const found = (Array.isArray(page.sessions) ? page.sessions : []).map(summary).find((s) => s?.sessionId === sessionId);
    if (found !== undefined) return found;
    cursor = typeof page.nextCursor === "string" && page.nextCursor !== "" ? page.nextCursor : undefined;
    if (cursor === undefined) return undefined;
  }
  return undefined;
}
