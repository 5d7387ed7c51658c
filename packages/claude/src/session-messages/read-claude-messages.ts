import { dirname } from "node:path";
import type {
  DriverSessionMessagesQuery,
  SessionImage,
  SessionMessage,
  SessionMessagePage,
  SessionToolCall,
  SessionToolResult,
} from "@adaptor/driver";
import {
  decodeSessionCursor,
  encodeSessionCursor,
  MAX_SESSION_MESSAGE_BYTES,
  MAX_SESSION_PAGE_BYTES,
  toolResultText,
} from "@adaptor/driver/kit";
import { checkSessionFolders, openRegularFile } from "@adaptor/driver/process";
import type { ClaudeConfig } from "../config.js";
import { findTranscript } from "../session-state/find-transcript.js";
import { claudeProjectsDir, SESSION_ID } from "../session-state/claude-session-transfer.js";
import { chainTo, ConversationMessages, TranscriptIndexer, type IndexedEntry } from "./transcript-index.js";
import { readLine, scanLines } from "./transcript-lines.js";

const READ_OP = "read claude session messages";
/** The longest transcript entry read whole (a longer one, a huge pasted file or tool output, is linked but not shown). */
const MAX_ENTRY_BYTES = MAX_SESSION_MESSAGE_BYTES;
/** Bytes of entries one page reads at most: a page ends before a message that would take it past them (its first message is always given). */
const MAX_PAGE_BYTES = MAX_SESSION_PAGE_BYTES;

/** Where a read of a session's messages stands: the conversation's last entry when the first page was read, and the messages given. */
interface ReadPosition {
  readonly leaf: string;
  readonly next: number;
}

function readPosition(value: unknown): ReadPosition | undefined {
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    typeof value[0] !== "string" ||
    !Number.isSafeInteger(value[1]) ||
    (value[1] as number) < 1
  )
    return undefined;
  return { leaf: value[0], next: value[1] as number };
}

function refusedCursor(cursor: string): never {
  // decodeSessionCursor's refusal, for a cursor that decodes but names no place in this session.
  return decodeSessionCursor<never>(cursor, () => undefined, "this Claude Code session's messages", "getSessionMessages query");
}

/**
 * The transcript of session `sessionId` in the CLI home's `projects` folder: in whichever
 * working directory's folder it is (the most recently written, should there be copies in
 * several), a regular file only; `undefined` when there is none.
 */
type Block = {
  type?: unknown;
  text?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  content?: unknown;
  is_error?: unknown;
  source?: unknown;
};

/** A user message's `image` block as a {@link SessionImage}: its media type and decoded size, never its bytes. */
function sessionImage(source: unknown): SessionImage {
  if (typeof source !== "object" || source === null) return {};
  const { media_type: mediaType, data } = source as { media_type?: unknown; data?: unknown };
  const padding = typeof data === "string" ? (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0) : 0;
  return {
    ...(typeof mediaType === "string" ? { mediaType } : {}),
    ...(typeof data === "string" ? { byteLength: Math.floor((data.length * 3) / 4) - padding } : {}),
  };
}

/** One shown message from its entries' parsed lines (a line that no longer parses is passed over). */
function toMessage(role: "user" | "assistant", lines: readonly Record<string, unknown>[]): SessionMessage {
  const texts: string[] = [];
  const toolCalls: SessionToolCall[] = [];
  const toolResults: SessionToolResult[] = [];
  const images: SessionImage[] = [];
  for (const line of lines) {
    const content = (line.message as { content?: unknown } | undefined)?.content;
    if (typeof content === "string") {
      texts.push(content);
      continue;
    }
    if (!Array.isArray(content)) continue;
    for (const block of content as Block[]) {
      if (typeof block !== "object" || block === null) continue;
      if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
      else if (block.type === "image" && role === "user") images.push(sessionImage(block.source));
      else if (block.type === "tool_use" && typeof block.id === "string" && typeof block.name === "string")
        toolCalls.push({ toolCallId: block.id, toolName: block.name, input: block.input ?? {} });
      else if (block.type === "tool_result" && typeof block.tool_use_id === "string")
        toolResults.push({
          toolCallId: block.tool_use_id,
          output: toolResultText(block.content),
          ...(typeof block.is_error === "boolean" ? { isError: block.is_error } : {}),
        });
    }
  }
  const first = lines[0];
  const at = typeof first?.timestamp === "string" ? Date.parse(first.timestamp) : Number.NaN;
  return {
    role,
    text: texts.join("\n"),
    ...(images.length > 0 ? { images } : {}),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(toolResults.length > 0 ? { toolResults } : {}),
    ...(Number.isNaN(at) ? {} : { at: new Date(at) }),
    ...(typeof first?.uuid === "string" ? { id: first.uuid } : {}),
  };
}

/**
 * One page of the messages of Claude Code session `query.sessionId` in the CLI home a run with
 * `query.env` uses (`<config dir>/projects/<folder>/<session id>.jsonl`, in any working
 * directory's folder), oldest first: the main conversation, from its first entry to its last
 * (the one `--resume` continues), following each entry's `parentUuid` (across a compaction, its
 * `logicalParentUuid`), so a branch left by a rewind and a subagent's side chain are not shown.
 * The transcript is scanned once per page, 256 KiB at a time, keeping a compact record per entry
 * (its uuid interned as a number, its parent's number, kind, reply and place in the file in typed
 * arrays; see `TranscriptIndex`), never its content; then only the page's entries are read again.
 * A transcript of more than 4,000,000 entries (`MAX_TRANSCRIPT_ENTRIES`) is not read. An entry
 * over 16 MiB (`MAX_ENTRY_BYTES`) is linked but not shown. A page holds at most 64 MiB
 * (`MAX_PAGE_BYTES`) of entries: it ends before a message that would take it past that, which
 * begins the next page; a page's first message is always given, even one over 64 MiB by itself. The cursor names the
 * conversation's last entry when the first page was read, so turns added meanwhile do not shift
 * later pages (they are read from a new first page).
 * @returns `undefined` when the home holds no transcript of that id (or the id is not a UUID).
 * @throws InvalidOptionError (subject `"getSessionMessages query"`, field `cursor`) for a cursor
 * this read did not give; DriverError `INVALID` for a link in place of the transcript or a folder
 * above it, `RESOURCE_EXHAUSTED` for a transcript over `MAX_TRANSCRIPT_ENTRIES` entries; the I/O error of an unreadable transcript; `signal.reason` when aborted.
 */
export async function readClaudeMessages(
  config: ClaudeConfig,
  query: DriverSessionMessagesQuery,
  signal?: AbortSignal,
): Promise<SessionMessagePage | undefined> {
  signal?.throwIfAborted();
  const after =
    query.cursor !== undefined
      ? decodeSessionCursor(query.cursor, readPosition, "this Claude Code session's messages", "getSessionMessages query")
      : undefined;
  if (!SESSION_ID.test(query.sessionId)) return undefined;
  const projects = claudeProjectsDir(config, query.env);
  const path = await findTranscript(projects, query.sessionId);
  if (path === undefined) return undefined;
  await checkSessionFolders(dirname(projects), path, READ_OP);
  const { handle, stat } = await openRegularFile(path, "read", READ_OP);
  try {
    const indexer = new TranscriptIndexer();
    await scanLines(handle, Number(stat.size), MAX_ENTRY_BYTES, (line) => indexer.add(line), signal);
    const index = indexer.done();
    const leaf = after?.leaf ?? index.leaf;
    if (after !== undefined && index.idOf(after.leaf) === undefined) refusedCursor(query.cursor!);
    const messages = leaf === undefined ? undefined : new ConversationMessages(index, chainTo(index, leaf));
    const count = messages?.count ?? 0;
    const start = after?.next ?? 0;
    if (start > count) refusedCursor(query.cursor!);
    const page: SessionMessage[] = [];
    let bytes = 0;
    let next = start;
    for (; next < count && page.length < query.limit; next++) {
      signal?.throwIfAborted();
      const entries = messages!.entries(next);
      const size = entries.reduce((sum, entry) => sum + entry.length, 0);
      // The page's cap holds: a message that would take the page past it begins the next page.
      if (page.length > 0 && bytes + size > MAX_PAGE_BYTES) break;
      bytes += size;
      const lines: Record<string, unknown>[] = [];
      for (const entry of entries) {
        const line = await readEntry(handle, entry);
        if (line) lines.push(line);
      }
      page.push(toMessage(messages!.role(next), lines));
    }
    return { messages: page, ...(next < count ? { nextCursor: encodeSessionCursor([leaf, next]) } : {}) };
  } finally {
    await handle.close();
  }
}

/** An indexed entry's line, parsed again; `undefined` if it no longer parses (the file changed under the read). */
async function readEntry(handle: Parameters<typeof readLine>[0], entry: IndexedEntry): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = JSON.parse((await readLine(handle, entry.offset, entry.length)).toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value) && (value as { uuid?: unknown }).uuid === entry.uuid
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
