import type { DriverSessionQuery, SessionSummary } from "@adaptor/driver";
import { JSON_RPC_INVALID_REQUEST, type JsonRpcConnection } from "@adaptor/driver/kit";
import { malformedAnswer, requestAnswer, type AnswerReader } from "../app-server/answers.js";
import { CodexRpcError } from "../app-server/codex-rpc-error.js";
import { withShortLivedAppServer } from "../app-server/short-lived-app-server.js";
import type { CodexConfig } from "../config.js";
import type { Thread } from "../protocol/generated/v2/Thread.js";
import type { ThreadReadParams } from "../protocol/generated/v2/ThreadReadParams.js";
import { summary } from "./list-codex-sessions.js";

/**
 * Whether codex refused a thread call for an id it holds no thread of, in this home:
 * `{"code":-32600,"message":"invalid thread id: …"}` for an id that is not a thread id,
 * `"thread not loaded: …"` or `"no rollout found for thread id …"` for one it does not hold.
 */
export function isUnknownThread(err: CodexRpcError, method: string): boolean {
  return (
    err.code === JSON_RPC_INVALID_REQUEST &&
    new RegExp(`^codex ${method.replace("/", "\\/")}: (thread not loaded|invalid thread id|no rollout found)\\b`).test(err.message)
  );
}

/** A `thread/read` answer: needs `thread` with its `id`. */
const threadRead: AnswerReader<{ thread: Thread }> = (method, answer) => {
  const thread = (answer as { thread?: { id?: unknown } } | null)?.thread;
  if (typeof thread !== "object" || thread === null || typeof thread.id !== "string")
    throw malformedAnswer(method, "has no thread with its id", answer);
  return answer as { thread: Thread };
};

/**
 * Codex's thread `threadId`, metadata only (`thread/read` without its turns).
 * @throws CodexRpcError for codex's refusal (see {@link isUnknownThread}); DriverError `DRIVER` for a malformed answer.
 */
export async function readThread(rpc: JsonRpcConnection, threadId: string): Promise<Thread> {
  const params: ThreadReadParams = { threadId, includeTurns: false };
  return (await requestAnswer(rpc, "thread/read", params, threadRead)).thread;
}

/**
 * The summary of codex's thread `query.sessionId` in the Codex home a run with `query.env` uses,
 * the record `listCodexSessions` gives for it, from `thread/read` (metadata only, no turns) on a
 * short-lived `codex app-server` (as a listing starts it): no thread is resumed, no model called.
 * @returns `undefined` when codex holds no thread of that id in this home.
 * @throws DriverError `NOT_FOUND` for a missing executable, `DRIVER` for another refusal or a
 * malformed answer (its cause the `CodexRpcError`); `signal.reason` when aborted (the process is
 * then ended).
 */
export async function readCodexSessionInfo(
  command: string,
  config: CodexConfig,
  query: DriverSessionQuery,
  signal?: AbortSignal,
): Promise<SessionSummary | undefined> {
  return withShortLivedAppServer({ command, config, cwd: config.cwd ?? process.cwd(), env: query.env, signal }, async (rpc) => {
    try {
      return summary(await readThread(rpc, query.sessionId));
    } catch (err) {
      if (err instanceof CodexRpcError && isUnknownThread(err, "thread/read")) return undefined;
      throw err;
    }
  });
}
