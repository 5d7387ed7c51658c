import type { DriverListSessionsQuery, SessionPage, SessionSummary } from "@adaptor/driver";
import { InvalidOptionError } from "@adaptor/errors";
import { JSON_RPC_INVALID_REQUEST, type JsonRpcConnection } from "@adaptor/driver/kit";
import { malformedAnswer, requestAnswer, type AnswerReader } from "../app-server/answers.js";
import type { CodexRpcError } from "../app-server/codex-rpc-error.js";
import { withShortLivedAppServer } from "../app-server/short-lived-app-server.js";
import type { CodexConfig } from "../config.js";
import type { Thread } from "../protocol/generated/v2/Thread.js";
import type { ThreadListParams } from "../protocol/generated/v2/ThreadListParams.js";
import type { ThreadListResponse } from "../protocol/generated/v2/ThreadListResponse.js";
import type { ThreadSourceKind } from "../protocol/generated/v2/ThreadSourceKind.js";

const METHOD = "thread/list";

/**
 * The threads a person or an app started, whatever the client: the codex TUI (`cli`), an editor
 * (`vscode`), `codex exec`, an app-server client (adaptor, the Codex SDK), and threads of an
 * unknown origin; not the subagents' own threads, which are parts of another conversation.
 * (codex's own default is the interactive ones only.)
 */
const LISTED_SOURCES: ThreadSourceKind[] = ["cli", "vscode", "exec", "appServer", "unknown"];

/** A `thread/list` page: needs `data`, a list of threads each with its `id`, and `nextCursor` (a string or null, if any). */
const threadsPage: AnswerReader<ThreadListResponse> = (method, answer) => {
  if (typeof answer !== "object" || answer === null) throw malformedAnswer(method, "is not an object", answer);
  const page = answer as Record<string, unknown>;
  if (!Array.isArray(page.data)) throw malformedAnswer(method, "has no data list", answer);
  if (page.data.some((thread) => typeof (thread as { id?: unknown } | null)?.id !== "string"))
    throw malformedAnswer(method, "has a thread without its id", answer);
  const cursor = page.nextCursor;
  if (cursor !== undefined && cursor !== null && typeof cursor !== "string")
    throw malformedAnswer(method, "has a nextCursor that is not a string", answer);
  return { ...page, nextCursor: cursor ?? null } as unknown as ThreadListResponse;
};

/**
 * Whether codex refused `thread/list`'s cursor: `{"code":-32600,"message":"invalid cursor: …"}`
 * (its code is that of any invalid request, so the message names the cursor too).
 */
function isRefusedCursor(err: CodexRpcError): boolean {
  return err.code === JSON_RPC_INVALID_REQUEST && err.message.startsWith(`codex ${METHOD}: invalid cursor`);
}

/** A string field of codex's answer, if it is a non-empty one. */
function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** A time of codex's answer (Unix seconds), if it is one. */
function seconds(value: unknown): Date | undefined {
  return typeof value === "number" && Number.isFinite(value) ? new Date(value * 1000) : undefined;
}

/** One thread of `thread/list` (or `thread/read`) as listed: its id is what `thread/resume` (and `adoptSession`) takes. */
export function summary(thread: Thread): SessionSummary {
  const cwd = text(thread.cwd);
  const firstPrompt = text(thread.preview);
  const title = text(thread.name) ?? firstPrompt;
  const createdAt = seconds(thread.createdAt);
  const updatedAt = seconds(thread.updatedAt);
  const gitBranch = text(thread.gitInfo?.branch);
  const model = text(thread.model);
  const forkedFrom = text(thread.forkedFromId);
  return {
    sessionId: thread.id,
    ...(cwd !== undefined ? { cwd } : {}),
    ...(title !== undefined ? { title } : {}),
    ...(firstPrompt !== undefined ? { firstPrompt } : {}),
    ...(createdAt !== undefined ? { createdAt } : {}),
    ...(updatedAt !== undefined ? { updatedAt } : {}),
    ...(gitBranch !== undefined ? { gitBranch } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(forkedFrom !== undefined ? { forkedFrom } : {}),
  };
}

/**
 * One page of the threads in the Codex home a run with `query.env` uses (`codexHome`, else
 * `CODEX_HOME`, else `~/.codex`), most recently updated first, asked of a short-lived
 * `codex app-server` (the driver's command, config and environment; `initialize`, one
 * `thread/list`, then its stdin closed and the process ended): no thread is opened and no model
 * is called. Codex answers from its own state (its thread index and rollout files) and leaves out a
 * rollout it cannot read itself: none is reported in `skipped`.
 * Times are codex's, in whole seconds. Archived threads and subagents' threads are not listed.
 * @throws InvalidOptionError (field `cursor`, its cause the `CodexRpcError`) when codex refuses the
 * cursor; DriverError `NOT_FOUND`
 * for a missing executable, `DRIVER` for any other refusal or a malformed answer (its cause the
 * `CodexRpcError`); `signal.reason` when aborted (the process is then ended).
 */
export async function listCodexSessions(
  command: string,
  config: CodexConfig,
  query: DriverListSessionsQuery,
  signal?: AbortSignal,
): Promise<SessionPage> {
  const page = await withShortLivedAppServer(
    { command, config, cwd: config.cwd ?? process.cwd(), env: query.env, signal },
    (rpc) => list(rpc, query),
    (err) =>
      query.cursor !== undefined && isRefusedCursor(err)
        ? new InvalidOptionError(
            { subject: "listSessions query", field: "cursor", reason: `codex refused it: ${err.message}` },
            { cause: err },
          )
        : undefined,
  );
  return {
    sessions: page.data.map(summary),
    skipped: [],
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
  };
}

async function list(rpc: JsonRpcConnection, query: DriverListSessionsQuery): Promise<ThreadListResponse> {
  const params: ThreadListParams = {
    limit: query.limit,
    cursor: query.cursor ?? null,
    sortKey: "updated_at",
    sortDirection: "desc",
    sourceKinds: LISTED_SOURCES,
    archived: false,
    ...(query.cwd !== undefined ? { cwd: query.cwd } : {}),
  };
  return requestAnswer(rpc, METHOD, params, threadsPage);
}
