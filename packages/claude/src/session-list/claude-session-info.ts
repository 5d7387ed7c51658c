import type { DriverSessionQuery, SessionSummary } from "@adaptor/driver";
import { DriverError, ErrCode } from "@adaptor/errors";
import { dirname } from "node:path";
import { checkSessionFolders, readFileEnds } from "@adaptor/driver/process";
import type { ClaudeConfig } from "../config.js";
import { claudeProjectsDir, SESSION_ID } from "../session-state/claude-session-transfer.js";
import { findTranscript } from "../session-state/find-transcript.js";
import { TRANSCRIPT_END_BYTES } from "./list-claude-sessions.js";
import { readTranscriptEnds } from "./transcript-summary.js";
import { readSavedTitle } from "../session-state/title-sidecar.js";

const READ_OP = "read claude session info";

/**
 * The summary of the Claude Code session `query.sessionId` in the CLI home a run with `query.env`
 * uses, the record {@link listClaudeSessions} gives for it, from that one transcript
 * (`<config dir>/projects/<any folder>/<id>.jsonl`, a regular file, the last modified of several):
 * its first and last 64 KiB and its title file, as a listing reads them. No other transcript is opened.
 * @returns `undefined` for an id that is not a UUID (no transcript is named so), no such
 * transcript, or a subagent's transcript (not a session of its own).
 * @throws DriverError (op `read claude session info`) `INVALID` for a transcript without a complete
 * entry of a session (empty, torn, another format), with the reason, or a link in place of a folder
 * of the home; the I/O error of an unreadable file; `signal.reason` when aborted.
 */
export async function readClaudeSessionInfo(
  config: ClaudeConfig,
  query: DriverSessionQuery,
  signal?: AbortSignal,
): Promise<SessionSummary | undefined> {
  signal?.throwIfAborted();
  if (!SESSION_ID.test(query.sessionId)) return undefined;
  const projects = claudeProjectsDir(config, query.env);
  const path = await findTranscript(projects, query.sessionId);
  if (path === undefined) return undefined;
  await checkSessionFolders(dirname(projects), path, READ_OP);
  signal?.throwIfAborted();
  let ends;
  try {
    ends = await readFileEnds(path, TRANSCRIPT_END_BYTES, TRANSCRIPT_END_BYTES, READ_OP);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined; // deleted since it was found
    throw error;
  }
  const reading = readTranscriptEnds(query.sessionId, ends, undefined, await readSavedTitle(path, query.sessionId));
  if (reading.kind === "ignored") return undefined;
  if (reading.kind === "skipped") throw new DriverError({ op: READ_OP, device: path, code: ErrCode.Invalid, cause: reading.reason });
  return reading.session;
}
