import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import type { DriverForkSessionQuery } from "@adaptor/driver";
import { DriverError, ErrCode, InvalidOptionError } from "@adaptor/errors";
import { checkSessionFolders, createSessionFile, readSessionFile } from "@adaptor/driver/process";
import type { ClaudeConfig } from "../config.js";
import { claudeProjectsDir, SESSION_ID } from "../session-state/claude-session-transfer.js";
import { findTranscript } from "../session-state/find-transcript.js";
import { readClaudeSessionInfo } from "../session-list/claude-session-info.js";
import { chainTo, ConversationMessages, TranscriptIndexer } from "../session-messages/transcript-index.js";

const FORK_OP = "fork claude session";
/** The transcript entries of a conversation (what the CLI links by `uuid` and `parentUuid`). */
const MESSAGE_TYPES: ReadonlySet<unknown> = new Set(["user", "assistant", "attachment", "system", "progress"]);
/** The title of a fork of a session without one, before `" (fork)"`. */
const UNTITLED = "Forked session";

type Entry = Record<string, unknown> & { readonly uuid: string; readonly type: string };

/** A transcript read for a fork: its entries of the main conversation in file order, and its other lines' tool-output replacements. */
interface ForkSource {
  readonly entries: readonly Entry[];
  readonly replacements: readonly unknown[];
  /** The session's last `atis-latch` value and `tools-used` list, carried by the fork as Claude Code carries them. */
  readonly atisLatch?: string;
  readonly toolsUsed?: readonly string[];
}

/** Calls `onLine` with each line of `content` (without its newline) and where it begins, never making one string of the whole file. */
function eachLine(content: Buffer, onLine: (line: Buffer, offset: number) => void): void {
  for (let start = 0; start < content.length;) {
    const newline = content.indexOf(0x0a, start);
    const end = newline === -1 ? content.length : newline;
    onLine(content.subarray(start, end), start);
    start = end + 1;
  }
}

/** The transcript's lines parsed: conversation entries (not a subagent's side chain) and `content-replacement` lines of `sessionId`. */
function parseTranscript(content: Buffer, sessionId: string): ForkSource {
  const entries: Entry[] = [];
  const replacements: unknown[] = [];
  let atisLatch: string | undefined;
  let toolsUsed: string[] | undefined;
  eachLine(content, (line) => {
    let value: unknown;
    try {
      value = JSON.parse(line.toString("utf8"));
    } catch {
      return; // an empty, torn or foreign line
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) return;
    const json = value as Record<string, unknown>;
    if (MESSAGE_TYPES.has(json.type) && typeof json.uuid === "string" && json.isSidechain !== true) entries.push(json as Entry);
    else if (json.type === "content-replacement" && json.sessionId === sessionId && Array.isArray(json.replacements))
      replacements.push(...(json.replacements as unknown[]));
    else if (
      json.type === "atis-latch" &&
      json.sessionId === sessionId &&
      typeof json.atis === "string" &&
      /^[\x21-\x7e]*$/.test(json.atis)
    )
      atisLatch = json.atis;
    else if (json.type === "tools-used" && json.sessionId === sessionId && Array.isArray(json.tools))
      toolsUsed = json.tools.filter((tool): tool is string => typeof tool === "string" && tool !== "");
  });
  return { entries, replacements, ...(atisLatch !== undefined ? { atisLatch } : {}), ...(toolsUsed !== undefined ? { toolsUsed } : {}) };
}

/**
 * The uuid of the last entry of the message `messageId` names, as `getSessionMessages` shows the
 * conversation (a reply's blocks and the results of its tool calls are one message): a fork cut
 * there keeps the message whole. An entry that begins no shown message is its own end.
 */
function messageEnd(content: Buffer, messageId: string): string {
  const indexer = new TranscriptIndexer();
  eachLine(content, (text, offset) => indexer.add({ offset, length: text.length, text }));
  const index = indexer.done();
  if (index.leaf === undefined) return messageId;
  const messages = new ConversationMessages(index, chainTo(index, index.leaf));
  for (let i = 0; i < messages.count; i++) {
    const entries = messages.entries(i);
    if (entries.some((entry) => entry.uuid === messageId)) return entries.at(-1)!.uuid;
  }
  return messageId;
}

/**
 * Where a fork cut at `entries[at]` ends: there, or for a progress line (never copied) at its
 * nearest ancestor the fork keeps, so that what the file holds between them (another branch of
 * the conversation) is not copied and the fork resumes from that ancestor. -1 for none.
 */
function keptEnd(entries: readonly Entry[], at: number): number {
  if (at < 0 || entries[at]!.type !== "progress") return at;
  const index = new Map(entries.slice(0, at).map((entry, i) => [entry.uuid, i]));
  // Each step goes to an earlier line (a parent is written before its child): a forged loop ends.
  for (let i = at; ;) {
    const parent = entries[i]!.parentUuid;
    const next = typeof parent === "string" ? index.get(parent) : undefined;
    if (next === undefined || next >= i) return -1;
    if (entries[next]!.type !== "progress") return next;
    i = next;
  }
}

/** The new uuid of the nearest ancestor of `parent` the fork keeps (progress lines are left out), or `null`. */
function keptParent(parent: unknown, byUuid: ReadonlyMap<string, Entry>, ids: ReadonlyMap<string, string>): string | null {
  const seen = new Set<string>();
  for (let at = parent; typeof at === "string" && !seen.has(at);) {
    seen.add(at);
    const entry = byUuid.get(at);
    if (entry === undefined) return null;
    if (entry.type !== "progress") return ids.get(at) ?? null;
    at = entry.parentUuid;
  }
  return null;
}

/** The session a reply's request was made in, as its entry records it (a fork's reply: the session it was forked from). */
function requestSession(entry: Entry): string | undefined {
  const forkedFrom = entry.forkedFrom as { sessionId?: unknown } | undefined;
  return [entry.requestSessionId, forkedFrom?.sessionId, entry.sessionId].find((id): id is string => typeof id === "string");
}

/**
 * The fork's lines: the entries (through `upTo`'s message, inclusive) with new uuids, their
 * `parentUuid` chain kept on the new ones (progress lines left out and stepped over), each marked
 * `forkedFrom` its original; the last stamped now, so the CLI resumes from it; then the tool-output
 * replacements, the session's `atis-latch` and `tools-used` lines, and the title.
 */
function forkLines(source: ForkSource, sessionId: string, forkId: string, cut: number, title: string): string[] {
  const taken = source.entries.slice(0, cut + 1);
  const byUuid = new Map(taken.map((entry) => [entry.uuid, entry]));
  const ids = new Map(taken.map((entry) => [entry.uuid, randomUUID()]));
  const kept = taken.filter((entry) => entry.type !== "progress");
  const now = new Date().toISOString();
  const lines = kept.map((entry, i) => {
    // Spread over the original: each key keeps its place (the CLI writes `parentUuid` first, `uuid` before `timestamp`).
    const copy: Record<string, unknown> = {
      ...entry,
      parentUuid: keptParent(entry.parentUuid, byUuid, ids),
      uuid: ids.get(entry.uuid),
      sessionId: forkId,
      forkedFrom: { sessionId, messageUuid: entry.uuid },
    };
    if (i === kept.length - 1) copy.timestamp = now;
    // As Claude Code forks a session: a turn's attribution key stays the original's turn's, a model
    // refusal's fallback is not restored on the fork's resume, and a reply keeps the session its
    // request was made in.
    delete copy.turnAttributionKey;
    if (entry.type === "system" && entry.subtype === "model_refusal_fallback") copy.neutralizedByFork = true;
    if (entry.type === "assistant") copy.requestSessionId = requestSession(entry) ?? sessionId;
    if (typeof entry.logicalParentUuid === "string") copy.logicalParentUuid = ids.get(entry.logicalParentUuid) ?? null;
    if (typeof entry.sourceToolAssistantUUID === "string") copy.sourceToolAssistantUUID = ids.get(entry.sourceToolAssistantUUID);
    return JSON.stringify(copy);
  });
  if (source.replacements.length > 0)
    lines.push(
      JSON.stringify({
        type: "content-replacement",
        sessionId: forkId,
        replacements: source.replacements,
        uuid: randomUUID(),
        timestamp: now,
      }),
    );
  if (source.atisLatch !== undefined) lines.push(JSON.stringify({ type: "atis-latch", sessionId: forkId, atis: source.atisLatch }));
  if (source.toolsUsed !== undefined) lines.push(JSON.stringify({ type: "tools-used", sessionId: forkId, tools: source.toolsUsed }));
  lines.push(JSON.stringify({ type: "custom-title", customTitle: title, sessionId: forkId }));
  return lines;
}

/**
 * Forks the Claude Code session `query.sessionId` the way the Claude Agent SDK's `forkSession`
 * does: its transcript's conversation (the main one, not a subagent's) copied into a new transcript
 * `<the same project folder>/<new id>.jsonl`, every entry with a new `uuid` and its `parentUuid`
 * chain kept on the new ones, marked `forkedFrom` its original; through the message
 * `query.upToMessageId` (`SessionMessage.id`), whole as `getSessionMessages` shows it (a reply's
 * blocks and its tool results; an id of another entry of the conversation, such as one of the
 * Claude Agent SDK's message uuids, ends it at that entry; a progress line's, at the entry it hangs
 * from); then a `custom-title` entry, the title
 * `query.title`, else the original's (as `getSessionInfo` gives it) and `" (fork)"`. File-history
 * snapshots, progress lines and the original's other lines are not copied. `claude --resume <new
 * id>` continues the fork; the original is not touched. No process is started.
 * The transcript is read whole (at most `SESSION_FILE_LIMIT_BYTES`); the fork is created
 * `O_EXCL` (see `createSessionFile`).
 * @returns the fork's session id, or `undefined`, writing nothing, for an id that is not a UUID or
 * no such transcript (a symbolic link or FIFO in its place is none).
 * @throws InvalidOptionError (subject `"forkSession arguments"`, field `upToMessageId`), nothing
 * written, when the conversation holds no entry of that id; DriverError (op `fork claude session`
 * or `read session file`) `INVALID` for a hard link in place of the transcript, a link in place of a
 * folder of the home, or a transcript without a message to fork, `RESOURCE_EXHAUSTED` for one over
 * the limit, nothing written; the I/O error of a failed read or write; `signal.reason` when
 * aborted (before anything is written).
 */
export async function forkClaudeSession(
  config: ClaudeConfig,
  query: DriverForkSessionQuery,
  signal?: AbortSignal,
): Promise<string | undefined> {
  signal?.throwIfAborted();
  if (!SESSION_ID.test(query.sessionId)) return undefined;
  const projects = claudeProjectsDir(config, query.env);
  const path = await findTranscript(projects, query.sessionId);
  if (path === undefined) return undefined;
  const home = dirname(projects);
  await checkSessionFolders(home, path, FORK_OP);
  const content = await readSessionFile(path, () => true, signal);
  if (content === undefined) return undefined; // deleted since it was found
  const source = parseTranscript(content, query.sessionId);
  if (!source.entries.some((entry) => entry.type !== "progress"))
    throw new DriverError({ op: FORK_OP, device: path, code: ErrCode.Invalid, cause: "the session holds no message to fork" });
  let cut = source.entries.length - 1;
  if (query.upToMessageId !== undefined) {
    const end = messageEnd(content, query.upToMessageId);
    cut = keptEnd(
      source.entries,
      source.entries.findIndex((entry) => entry.uuid === end),
    );
    if (cut < 0)
      throw new InvalidOptionError({
        subject: "forkSession arguments",
        field: "upToMessageId",
        reason: `session ${query.sessionId} holds no message ${JSON.stringify(query.upToMessageId)}`,
      });
  }
  const title =
    query.title ??
    `${(await readClaudeSessionInfo(config, { sessionId: query.sessionId, ...(query.env ? { env: query.env } : {}) }, signal))?.title ?? UNTITLED} (fork)`;
  const forkId = randomUUID();
  const lines = forkLines(source, query.sessionId, forkId, cut, title);
  signal?.throwIfAborted();
  await createSessionFile(
    join(dirname(path), `${forkId}.jsonl`),
    Buffer.concat(lines.map((line) => Buffer.from(`${line}\n`, "utf8"))),
    home,
    FORK_OP,
  );
  return forkId;
}
