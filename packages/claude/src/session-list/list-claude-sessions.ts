import { lstat } from "node:fs/promises";
import { join } from "node:path";
import type { DriverListSessionsQuery, SessionPage, SessionSummary, SkippedSession } from "@adaptor/driver";
import { readFileEnds } from "@adaptor/driver/process";
import type { ClaudeConfig } from "../config.js";
import { entriesOf } from "../session-state/folder-entries.js";
import { claudeProjectDir, claudeProjectsDir, MAX_PROJECT_DIR, SESSION_ID } from "../session-state/claude-session-transfer.js";
import { comparePositions, decodeCursor, encodeCursor, type ListingPosition } from "./session-cursor.js";
import { readTranscriptEnds } from "./transcript-summary.js";
import { readSavedTitle } from "../session-state/title-sidecar.js";

/** Bytes read from each end of a transcript: its first entries and its last (titles, last prompt). */
export const TRANSCRIPT_END_BYTES = 64 * 1024;
const READ_OP = "list claude sessions";
/** Transcripts whose modification time is asked at once. */
const LSTAT_BATCH = 128;

/** The project folders to look in: all of them, or those the CLI may name after `cwd`. */
function wantedFolder(cwd: string | undefined): (name: string) => boolean {
  if (cwd === undefined) return () => true;
  const name = claudeProjectDir(cwd);
  if (name.length <= MAX_PROJECT_DIR) return (folder) => folder === name;
  // A longer path is cut and suffixed (a hash by the CLI, our own by an import): match the cut part.
  const cut = name.slice(0, MAX_PROJECT_DIR);
  return (folder) => folder.startsWith(`${cut}-`);
}

/**
 * One page of the Claude Code sessions in the CLI home a run with `query.env` uses
 * (`<config dir>/projects/<cwd folder>/<session id>.jsonl`), most recently modified first. Every
 * transcript is only listed and `lstat`ed (its name and modification time); only those a page
 * examines are opened, and of each only its first and last 64 KiB are read (and the title file
 * the CLI keeps beside it, `<id>/custom-title.json`, when there is one), so neither thousands
 * of sessions nor a transcript of gigabytes is read whole. A page examines at most `limit`
 * transcripts it lists or skips (a transcript of another `cwd` sharing the folder does not count).
 * Links, folders and other files in place of a transcript are not transcripts: never listed,
 * never followed.
 * @throws InvalidOptionError (field `cursor`) for a cursor this listing did not give; the I/O
 * error of an unreadable projects folder; `signal.reason` when aborted.
 */
export async function listClaudeSessions(config: ClaudeConfig, query: DriverListSessionsQuery, signal?: AbortSignal): Promise<SessionPage> {
  signal?.throwIfAborted();
  const after = query.cursor !== undefined ? decodeCursor(query.cursor) : undefined;
  const projects = claudeProjectsDir(config, query.env);
  const wanted = wantedFolder(query.cwd);
  const candidates: ListingPosition[] = [];
  for (const folder of await entriesOf(projects)) {
    if (!folder.isDirectory() || !wanted(folder.name)) continue;
    const sessionIds = (await entriesOf(join(projects, folder.name)))
      .filter((file) => file.isFile() && file.name.endsWith(".jsonl"))
      .map((file) => file.name.slice(0, -".jsonl".length))
      .filter((sessionId) => SESSION_ID.test(sessionId));
    // A batch of lstat calls at a time: a folder of thousands of transcripts is not waited on one by one.
    for (let start = 0; start < sessionIds.length; start += LSTAT_BATCH) {
      signal?.throwIfAborted();
      const batch = sessionIds.slice(start, start + LSTAT_BATCH);
      const times = await Promise.all(
        batch.map((sessionId) =>
          lstat(join(projects, folder.name, `${sessionId}.jsonl`)).then(
            (stat) => stat.mtimeMs,
            () => undefined, // gone since the folder was read
          ),
        ),
      );
      batch.forEach((sessionId, i) => {
        const modifiedMs = times[i];
        if (modifiedMs === undefined) return;
        const position = { modifiedMs, sessionId, folder: folder.name };
        if (after === undefined || comparePositions(position, after) > 0) candidates.push(position);
      });
    }
  }
  candidates.sort(comparePositions);
  const sessions: SessionSummary[] = [];
  const skipped: SkippedSession[] = [];
  let examined = 0;
  let index = 0;
  for (; index < candidates.length && examined < query.limit; index++) {
    signal?.throwIfAborted();
    const { sessionId, folder } = candidates[index]!;
    let reading: ReturnType<typeof readTranscriptEnds>;
    try {
      const path = join(projects, folder, `${sessionId}.jsonl`);
      const ends = await readFileEnds(path, TRANSCRIPT_END_BYTES, TRANSCRIPT_END_BYTES, READ_OP);
      reading = readTranscriptEnds(sessionId, ends, query.cwd, await readSavedTitle(path, sessionId));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // deleted since it was listed
      reading = { kind: "skipped", reason: `unreadable: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (reading.kind === "ignored") continue;
    examined++;
    if (reading.kind === "session") sessions.push(reading.session);
    else skipped.push({ sessionId, reason: reading.reason });
  }
  const more = index < candidates.length;
  return { sessions, skipped, ...(more ? { nextCursor: encodeCursor(candidates[index - 1]!) } : {}) };
}
