import type { DriverFailure, DriverRequest, DriverSink } from "@adaptor/driver";
import type { JsonRpcConnection } from "@adaptor/driver/kit";
import { CodexRpcError } from "../app-server/codex-rpc-error.js";
import { requestAnswer, turnsPage } from "../app-server/answers.js";
import { withShortLivedAppServer } from "../app-server/short-lived-app-server.js";
import { resumeRefusal } from "../classify.js";
import type { CodexConfig } from "../config.js";
import type { ThreadResumeParams } from "../protocol/generated/v2/ThreadResumeParams.js";
import type { ThreadRevertParams } from "../protocol/generated/v2/ThreadRevertParams.js";
import type { ThreadTurnsListParams } from "../protocol/generated/v2/ThreadTurnsListParams.js";

const PAGE = 100;

/** What {@link rewindExecThread} needs. */
export interface ExecRewindInit {
  readonly command: string;
  readonly config: CodexConfig;
  readonly request: DriverRequest & { readonly session: NonNullable<DriverRequest["session"]> };
  readonly sink: DriverSink;
  readonly signal: AbortSignal;
  /**
   * Number of committed turns of the thread (from the checkpoint); undefined for a thread this
   * driver has no count of (an adopted CLI thread): then nothing is dropped, and its turns are counted.
   */
  readonly turns: number | undefined;
}

/** What {@link rewindExecThread} found. */
export interface ExecRewindOutcome {
  /** Why the thread cannot be opened (`resume_rejected`, `session_busy`); undefined when it was. */
  readonly failure?: DriverFailure;
  /** The thread's turns once the uncommitted ones are dropped (when it was opened). */
  readonly turns?: number;
}

/**
 * Makes a thread start from its committed checkpoint before `codex exec resume` (which cannot
 * revert): a short-lived `codex app-server` (same command, config, environment and cwd) opens the
 * thread, counts its turns and, when codex recorded more than `turns` (a failed, cancelled or
 * uncommitted turn), drops them with `thread/revert`, then exits. Returns the failure when the
 * thread cannot be opened (no such thread: `resume_rejected`; another process writing to it:
 * `session_busy`), else undefined.
 *
 * @throws DriverError (its cause the `CodexRpcError`) for any other refusal or a failed request:
 * an infrastructure failure; `signal.reason` after a cancel.
 */
export async function rewindExecThread(init: ExecRewindInit): Promise<ExecRewindOutcome> {
  const { config, request, signal } = init;
  return withShortLivedAppServer(
    {
      command: init.command,
      config,
      cwd: request.cwd ?? config.cwd ?? process.cwd(),
      env: request.env,
      signal,
    },
    (rpc) => rewind(rpc, init, request.session.resumeId),
  );
}

async function rewind(rpc: JsonRpcConnection, init: ExecRewindInit, threadId: string): Promise<ExecRewindOutcome> {
  const { sink } = init;
  try {
    await rpc.request("thread/resume", { threadId, excludeTurns: true } satisfies ThreadResumeParams);
  } catch (err) {
    const refusal = err instanceof CodexRpcError ? resumeRefusal(err.message) : "other";
    if (refusal === "other") throw err;
    return {
      failure: {
        reason: refusal === "missing" ? "resume_rejected" : "session_busy",
        message: (err as Error).message,
        details: { resumeId: threadId },
        cause: err,
      },
    };
  }
  let count = 0;
  let firstUncommitted: string | undefined;
  let cursor: string | null = null;
  do {
    const params: ThreadTurnsListParams = { threadId, limit: PAGE, sortDirection: "asc", itemsView: "notLoaded", cursor };
    const page = await requestAnswer(rpc, "thread/turns/list", params, turnsPage);
    for (const turn of page.data) {
      if (count === init.turns) firstUncommitted ??= turn.id;
      count++;
    }
    cursor = page.nextCursor;
  } while (cursor);
  if (init.turns === undefined) return { turns: count };
  if (firstUncommitted) {
    await rpc.request("thread/revert", { threadId, beforeTurnId: firstUncommitted } satisfies ThreadRevertParams);
    sink.emit({ type: "notice", kind: "lifecycle", message: "uncommitted turns dropped", data: { threadId, count: count - init.turns } });
    return { turns: init.turns };
  }
  if (count < init.turns) {
    sink.emit({
      type: "notice",
      kind: "warning",
      message: "codex's thread has fewer turns than the checkpoint; nothing dropped",
      data: { threadId, turns: count },
    });
  }
  return { turns: init.turns };
}
