import { dirname } from "node:path";
import type { DriverRenameSessionQuery, DriverSessionQuery, DriverTagSessionQuery } from "@adaptor/driver";
import { appendSessionLine, checkSessionFolders } from "@adaptor/driver/process";
import type { ClaudeConfig } from "../config.js";
import { claudeProjectsDir, SESSION_ID } from "../session-state/claude-session-transfer.js";
import { findTranscript } from "../session-state/find-transcript.js";
import { titleSidecarPath, writeSavedTitle } from "../session-state/title-sidecar.js";

const WRITE_OP = "write claude session entry";

/**
 * Appends `entry` (a transcript entry of the session, one JSON line) to the transcript of the
 * Claude Code session `query.sessionId` in the CLI home a run with `query.env` uses, found as
 * `getSessionMessages` finds it. Append-only (see `appendSessionLine`): a CLI process writing the
 * session at the same moment loses nothing and the entry is never torn by it.
 * With `title`, the title file is written after the entry (`writeSavedTitle`), its folder checked
 * before anything is written.
 * @returns `false`, writing nothing, for an id that is not a UUID, no such transcript (a symbolic
 * link or FIFO in its place is none: `findTranscript` skips them), or an empty one.
 * @throws DriverError (op `write claude session entry`) `INVALID` for a hard link in place of the
 * transcript or a link in place of a folder of the home or of the title file's folder,
 * nothing written; the I/O error of a failed write (a failed title file write rejects after the
 * entry was appended: the title holds until the entry leaves the transcript's last 64 KiB);
 * `signal.reason` when aborted (before anything is written).
 */
async function appendEntry(
  config: ClaudeConfig,
  query: DriverSessionQuery,
  entry: Record<string, unknown>,
  signal: AbortSignal | undefined,
  title?: string,
): Promise<boolean> {
  signal?.throwIfAborted();
  if (!SESSION_ID.test(query.sessionId)) return false;
  const projects = claudeProjectsDir(config, query.env);
  const path = await findTranscript(projects, query.sessionId);
  if (path === undefined) return false;
  const home = dirname(projects);
  await checkSessionFolders(home, path, WRITE_OP);
  // The title file's folder is checked before anything is written: a refusal leaves the session as it was.
  if (title !== undefined) await checkSessionFolders(home, titleSidecarPath(path, query.sessionId), WRITE_OP);
  signal?.throwIfAborted();
  if (!(await appendSessionLine(path, JSON.stringify(entry), WRITE_OP, home))) return false;
  if (title !== undefined) await writeSavedTitle(home, path, query.sessionId, title);
  return true;
}

/**
 * Gives a Claude Code session a title the way Claude Code's `/rename` does: a
 * `{"type":"custom-title","customTitle":<title>,"sessionId":<id>}` entry appended to its transcript
 * (what the Claude Agent SDK's `renameSession` writes too), then the title file beside it
 * (`writeSavedTitle`), which keeps the title once the transcript's last 64 KiB no longer hold the
 * entry. The CLI's own session picker, the SDK's `getSessionInfo` and `listSessions` read it as
 * the session's title (the last one wins). See {@link appendEntry}.
 */
export function renameClaudeSession(config: ClaudeConfig, query: DriverRenameSessionQuery, signal?: AbortSignal): Promise<boolean> {
  return appendEntry(config, query, { type: "custom-title", customTitle: query.title, sessionId: query.sessionId }, signal, query.title);
}

/**
 * Gives a Claude Code session a tag the way the Claude Agent SDK's `tagSession` does: a
 * `{"type":"tag","tag":<tag>,"sessionId":<id>}` entry appended to its transcript (`""` for a
 * cleared tag), which the SDK's `getSessionInfo` and `listSessions` read (the last one wins). See
 * {@link appendEntry}.
 */
export function tagClaudeSession(config: ClaudeConfig, query: DriverTagSessionQuery, signal?: AbortSignal): Promise<boolean> {
  return appendEntry(config, query, { type: "tag", tag: query.tag ?? "", sessionId: query.sessionId }, signal);
}
