import type { DriverSessionMessagesQuery, SessionMessage, SessionMessagePage, SessionToolCall, SessionToolResult } from "@adaptor/driver";
import { InvalidOptionError } from "@adaptor/errors";
import { decodeSessionCursor, encodeSessionCursor, JSON_RPC_INVALID_REQUEST, type JsonRpcConnection } from "@adaptor/driver/kit";
import { requestAnswer, turnsPage } from "../app-server/answers.js";
import { CodexRpcError } from "../app-server/codex-rpc-error.js";
import { withShortLivedAppServer } from "../app-server/short-lived-app-server.js";
import { resultOf, toolInputOf, toolNameOf } from "../app-server/turn-state.js";
import type { CodexConfig } from "../config.js";
import { modelReplies } from "./model-replies.js";
import type { ThreadItem } from "../protocol/generated/v2/ThreadItem.js";
import type { ThreadTurnsListParams } from "../protocol/generated/v2/ThreadTurnsListParams.js";
import type { Turn } from "../protocol/generated/v2/Turn.js";

const METHOD = "thread/turns/list";
const SUBJECT = "getSessionMessages query";
const READ = "this codex thread's messages";
/**
 * Turns asked of codex a request: every item of a batch comes in one JSON line, so a small batch
 * keeps the line (under `maxLineBytes`) and a page's memory small whatever the page's `limit`.
 */
const TURN_BATCH = 2;

/**
 * Where a read of a thread's messages stands: the thread it reads, codex's cursor of the batch of
 * turns the next page begins in (`null`: the first turn), how many turns a batch holds (always
 * {@link TURN_BATCH}), and how many of that batch's messages were given already (fewer than the
 * batch holds; the read checks).
 */
interface ReadPosition {
  readonly threadId: string;
  readonly from: string | null;
  readonly batch: number;
  readonly skip: number;
}

/** The position a cursor holds when a read of thread `threadId` gave it, else `undefined`. */
function readPositionOf(threadId: string): (value: unknown) => ReadPosition | undefined {
  return (value) => {
    if (!Array.isArray(value) || value.length !== 4) return undefined;
    const [thread, from, batch, skip] = value as unknown[];
    if (thread !== threadId || (from !== null && typeof from !== "string") || batch !== TURN_BATCH) return undefined;
    if (!Number.isSafeInteger(skip) || (skip as number) < 0) return undefined;
    return { threadId, from, batch, skip: skip as number };
  };
}

function encode(position: ReadPosition): string {
  return encodeSessionCursor([position.threadId, position.from, position.batch, position.skip]);
}

/** A time of codex's (Unix milliseconds), if it is one. */
function millis(value: unknown): Date | undefined {
  return typeof value === "number" && Number.isFinite(value) ? new Date(value) : undefined;
}

/** A message being put together from a turn's items. */
interface Draft {
  role: "user" | "assistant";
  text: string;
  toolCalls: SessionToolCall[];
  toolResults: SessionToolResult[];
  at: Date | undefined;
  id: string;
  /** The model reply it holds (see {@link modelReplies}), when known. */
  reply: number | undefined;
}

function finished(draft: Draft): SessionMessage {
  return {
    role: draft.role,
    text: draft.text,
    ...(draft.toolCalls.length > 0 ? { toolCalls: draft.toolCalls } : {}),
    ...(draft.toolResults.length > 0 ? { toolResults: draft.toolResults } : {}),
    ...(draft.at !== undefined ? { at: draft.at } : {}),
    id: draft.id,
  };
}

/**
 * The messages of codex's turns, in order: a user message item is a user message (its text
 * inputs joined); each agent message item begins an assistant message; a tool call item (a
 * command, a file change, an MCP or dynamic tool call, a web search, an image view) joins the
 * assistant message it follows (one of text `""` when it follows the user's, or when `replies`
 * places it in another model reply than that message), with its result once it ended, named as on
 * the `tool-call` and `tool-result` events. Reasoning, plans and codex's own markers are not shown.
 * @param replies - the model reply of each item by its id (see {@link modelReplies}); without it,
 * or for an item it lacks, a tool call stays with the message before it.
 */
export function turnMessages(turns: readonly Turn[], replies: ReadonlyMap<string, number> = new Map()): SessionMessage[] {
  const messages: SessionMessage[] = [];
  for (const turn of turns) {
    let draft: Draft | undefined;
    const flush = (): void => {
      if (draft) messages.push(finished(draft));
      draft = undefined;
    };
    for (const item of turn.items as ThreadItem[]) {
      const at = millis(item.startedAtMs);
      if (item.type === "userMessage") {
        flush();
        const text = item.content
          .map((input) => (input.type === "text" ? input.text : undefined))
          .filter((part): part is string => part !== undefined)
          .join("\n");
        draft = { role: "user", text, toolCalls: [], toolResults: [], at, id: item.id, reply: undefined };
        continue;
      }
      if (item.type === "agentMessage") {
        flush();
        draft = { role: "assistant", text: item.text, toolCalls: [], toolResults: [], at, id: item.id, reply: replies.get(item.id) };
        continue;
      }
      const toolName = toolNameOf(item);
      if (toolName === undefined) continue;
      const id = (item as { id?: unknown }).id;
      if (typeof id !== "string") continue;
      const reply = replies.get(id);
      // A call of a later model reply than the message's begins a message of its own.
      if (draft?.role !== "assistant" || (reply !== undefined && draft.reply !== undefined && reply !== draft.reply)) {
        flush();
        draft = { role: "assistant", text: "", toolCalls: [], toolResults: [], at, id, reply };
      }
      draft.reply ??= reply;
      draft.toolCalls.push({ toolCallId: id, toolName, input: toolInputOf(item) });
      if ((item as { status?: unknown }).status !== "inProgress") {
        const { output, isError } = resultOf(item, undefined);
        draft.toolResults.push({ toolCallId: id, output, isError });
      }
    }
    flush();
  }
  return messages;
}

/**
 * Whether codex's refusal of `thread/turns/list` says it holds no such thread: `thread not
 * loaded: <id>` (no rollout of that id in its home) or `invalid thread id` (not a UUID).
 */
function isUnknownThread(err: CodexRpcError): boolean {
  return err.code === JSON_RPC_INVALID_REQUEST && /^codex thread\/turns\/list: (thread not loaded|invalid thread id)\b/.test(err.message);
}

/** Whether codex refused the cursor of `thread/turns/list`. */
function isRefusedCursor(err: CodexRpcError): boolean {
  return err.code === JSON_RPC_INVALID_REQUEST && err.message.startsWith(`codex ${METHOD}: invalid cursor`);
}

/** What {@link read} found: the page, or that codex holds no such thread. */
type Reading = { readonly page: SessionMessagePage } | { readonly unknown: true };

/**
 * One page of the messages of codex thread `query.sessionId` in the Codex home a run with
 * `query.env` uses (`codexHome`, else `CODEX_HOME`, else `~/.codex`), oldest first, asked of a
 * short-lived `codex app-server` (`initialize`, then `thread/turns/list` with every item,
 * oldest turn first, {@link TURN_BATCH} turns a request, until the page is full; then its stdin is closed and
 * the process ended): the thread is not resumed and no model is called. Messages are made of the
 * turns' items (see {@link turnMessages}), one assistant message per model reply: where a reply
 * ends is read from the thread's rollout files (see {@link modelReplies}); a subagent's own thread
 * is not part of it. Codex's times are its items' start, in milliseconds.
 * @returns `undefined` when codex holds no thread of that id in this home.
 * @throws InvalidOptionError (subject `"getSessionMessages query"`, field `cursor`) for a cursor
 * a read of this thread did not give (another thread's, a hand-made one, one past the messages of
 * the batch it names) or codex refuses; DriverError `NOT_FOUND` for a missing executable,
 * `DRIVER` for any other refusal or a malformed answer (its cause the `CodexRpcError`),
 * `RESOURCE_EXHAUSTED` when a batch's answer is longer than `maxLineBytes`;
 * `signal.reason` when aborted (the process is then ended).
 */
export async function readCodexMessages(
  command: string,
  config: CodexConfig,
  query: DriverSessionMessagesQuery,
  signal?: AbortSignal,
): Promise<SessionMessagePage | undefined> {
  const start =
    query.cursor !== undefined
      ? decodeSessionCursor(query.cursor, readPositionOf(query.sessionId), READ, SUBJECT)
      : { threadId: query.sessionId, from: null, batch: TURN_BATCH, skip: 0 };
  const replies = await modelReplies(config, query.sessionId, query.env, signal);
  const reading = await withShortLivedAppServer<Reading>(
    { command, config, cwd: config.cwd ?? process.cwd(), env: query.env, signal },
    async (rpc) => {
      try {
        return { page: await read(rpc, query, start, replies) };
      } catch (err) {
        if (err instanceof CodexRpcError && isUnknownThread(err)) return { unknown: true };
        throw err;
      }
    },
    (err) =>
      query.cursor !== undefined && isRefusedCursor(err)
        ? new InvalidOptionError({ subject: SUBJECT, field: "cursor", reason: `codex refused it: ${err.message}` }, { cause: err })
        : undefined,
  );
  return "page" in reading ? reading.page : undefined;
}

async function read(
  rpc: JsonRpcConnection,
  query: DriverSessionMessagesQuery,
  start: ReadPosition,
  replies: ReadonlyMap<string, number>,
): Promise<SessionMessagePage> {
  const messages: SessionMessage[] = [];
  let { from, skip } = start;
  const { threadId, batch } = start;
  for (;;) {
    const params: ThreadTurnsListParams = {
      threadId: query.sessionId,
      cursor: from,
      limit: batch,
      sortDirection: "asc",
      itemsView: "full",
    };
    const turns = await requestAnswer(rpc, METHOD, params, turnsPage);
    const batchMessages = turnMessages(turns.data, replies);
    // A batch's messages only grow, and a cursor names one it has not given yet.
    if (skip > 0 && skip >= batchMessages.length)
      throw new InvalidOptionError({ subject: SUBJECT, field: "cursor", reason: `is not a cursor ${READ} gave` });
    const available = batchMessages.slice(skip);
    const room = query.limit - messages.length;
    if (available.length > room) {
      messages.push(...available.slice(0, room));
      return { messages, nextCursor: encode({ threadId, from, batch, skip: skip + room }) };
    }
    messages.push(...available);
    if (turns.nextCursor === null) return { messages };
    from = turns.nextCursor;
    skip = 0;
    if (messages.length === query.limit) return { messages, nextCursor: encode({ threadId, from, batch, skip }) };
  }
}
