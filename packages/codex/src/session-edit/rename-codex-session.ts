import type { DriverRenameSessionQuery } from "@adaptor/driver";
import { answerObject, requestAnswer } from "../app-server/answers.js";
import { CodexRpcError } from "../app-server/codex-rpc-error.js";
import { withShortLivedAppServer } from "../app-server/short-lived-app-server.js";
import type { CodexConfig } from "../config.js";
import type { ThreadSetNameParams } from "../protocol/generated/v2/ThreadSetNameParams.js";
import { isUnknownThread } from "../session-list/codex-session-info.js";

/**
 * Names codex's thread `query.sessionId` `query.title` with `thread/name/set` on a short-lived
 * `codex app-server` in the Codex home a run with `query.env` uses: codex records the name itself
 * (its thread index), `thread/list`, `thread/read` and the codex TUI's resume picker show it. A
 * thread another codex process runs at the same moment is not rewritten by it.
 * @returns `false` when codex holds no thread of that id in this home.
 * @throws as `readCodexSessionInfo`.
 */
export async function renameCodexSession(
  command: string,
  config: CodexConfig,
  query: DriverRenameSessionQuery,
  signal?: AbortSignal,
): Promise<boolean> {
  return withShortLivedAppServer({ command, config, cwd: config.cwd ?? process.cwd(), env: query.env, signal }, async (rpc) => {
    const params: ThreadSetNameParams = { threadId: query.sessionId, name: query.title };
    try {
      await requestAnswer(rpc, "thread/name/set", params, answerObject);
      return true;
    } catch (err) {
      if (err instanceof CodexRpcError && isUnknownThread(err, "thread/name/set")) return false;
      throw err;
    }
  });
}
