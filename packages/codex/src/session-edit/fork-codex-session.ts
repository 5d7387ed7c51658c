import type { DriverForkSessionQuery } from "@adaptor/driver";
import { InvalidOptionError } from "@adaptor/errors";
import type { JsonRpcConnection } from "@adaptor/driver/kit";
import { answerObject, requestAnswer, threadOpened, turnsPage } from "../app-server/answers.js";
import { CodexRpcError } from "../app-server/codex-rpc-error.js";
import { withShortLivedAppServer } from "../app-server/short-lived-app-server.js";
import type { CodexConfig } from "../config.js";
import type { ThreadForkParams } from "../protocol/generated/v2/ThreadForkParams.js";
import type { ThreadSetNameParams } from "../protocol/generated/v2/ThreadSetNameParams.js";
import type { ThreadTurnsListParams } from "../protocol/generated/v2/ThreadTurnsListParams.js";
import { isUnknownThread, readThread } from "../session-list/codex-session-info.js";
import { summary } from "../session-list/list-codex-sessions.js";
import { modelReplies } from "../session-messages/model-replies.js";
import { turnMessages } from "../session-messages/read-codex-messages.js";

/** Turns asked of codex a request while the message a fork ends with is looked for (every item of a batch comes in one JSON line). */
const TURN_BATCH = 2;
/** The title of a fork of a thread without one, before `" (fork)"`. */
const UNTITLED = "Forked session";

function unknownMessage(query: DriverForkSessionQuery, reason: string): InvalidOptionError {
  return new InvalidOptionError({ subject: "forkSession arguments", field: "upToMessageId", reason });
}

/**
 * The id of the turn whose last message (as `getSessionMessages` shows the thread) is
 * `query.upToMessageId`: codex forks a thread after a whole turn (`thread/fork`'s `lastTurnId`).
 * @throws InvalidOptionError (field `upToMessageId`) when no turn holds that message, or it is not
 * its turn's last.
 */
async function turnEndingWith(
  rpc: JsonRpcConnection,
  query: DriverForkSessionQuery,
  replies: ReadonlyMap<string, number>,
): Promise<string> {
  const wanted = query.upToMessageId!;
  for (let cursor: string | null = null; ;) {
    const params: ThreadTurnsListParams = { threadId: query.sessionId, cursor, limit: TURN_BATCH, sortDirection: "asc", itemsView: "full" };
    const page = await requestAnswer(rpc, "thread/turns/list", params, turnsPage);
    for (const turn of page.data) {
      const ids = turnMessages([turn], replies).map((message) => message.id);
      if (!ids.includes(wanted)) continue;
      if (ids.at(-1) === wanted) return turn.id;
      throw unknownMessage(
        query,
        `codex forks a thread after a whole turn: message ${JSON.stringify(wanted)} is not the last of its turn, which ends with ${JSON.stringify(ids.at(-1))}`,
      );
    }
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  throw unknownMessage(query, `session ${query.sessionId} holds no message ${JSON.stringify(wanted)}`);
}

/**
 * Forks codex's thread `query.sessionId` with `thread/fork` on a short-lived `codex app-server` in
 * the Codex home a run with `query.env` uses: codex copies the thread into a new one of its own
 * (through the turn that ends with the message `query.upToMessageId`, `lastTurnId`; absent: all of
 * it), then names it with `thread/name/set`: `query.title`, else the original's title (as
 * `getSessionInfo` gives it) and `" (fork)"`. No model is called; the original is not changed.
 * @returns the fork's thread id, or `undefined`, nothing forked, when codex holds no thread of
 * that id in this home.
 * @throws InvalidOptionError (subject `"forkSession arguments"`, field `upToMessageId`), nothing
 * forked, when no turn of the thread holds that message or it is not its turn's last; as
 * `readCodexSessionInfo` otherwise; `signal.reason` when aborted before `thread/fork` is sent (an
 * abort after it does not stop the call: the fork exists, and its id is returned).
 */
export async function forkCodexSession(
  command: string,
  config: CodexConfig,
  query: DriverForkSessionQuery,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const replies =
    query.upToMessageId !== undefined ? await modelReplies(config, query.sessionId, query.env, signal) : new Map<string, number>();
  // `signal` stops the call until `thread/fork` is sent; from then on the fork exists, and the call
  // ends with its id (each request bounded by replyTimeoutMs), not with an abort that hides it.
  const stop = new AbortController();
  let forking = false;
  const onAbort = (): void => {
    if (!forking) stop.abort(signal!.reason);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  try {
    return await withShortLivedAppServer(
      { command, config, cwd: config.cwd ?? process.cwd(), env: query.env, signal: stop.signal },
      async (rpc) => {
        let original;
        try {
          original = await readThread(rpc, query.sessionId);
        } catch (err) {
          if (err instanceof CodexRpcError && isUnknownThread(err, "thread/read")) return undefined;
          throw err;
        }
        const lastTurnId = query.upToMessageId !== undefined ? await turnEndingWith(rpc, query, replies) : undefined;
        const params: ThreadForkParams = {
          threadId: query.sessionId,
          excludeTurns: true,
          ...(lastTurnId !== undefined ? { lastTurnId } : {}),
        };
        stop.signal.throwIfAborted();
        forking = true;
        const forked = (await requestAnswer(rpc, "thread/fork", params, threadOpened)).thread.id;
        const name: ThreadSetNameParams = { threadId: forked, name: query.title ?? `${summary(original).title ?? UNTITLED} (fork)` };
        await requestAnswer(rpc, "thread/name/set", name, answerObject);
        return forked;
      },
    );
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}
