import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { entriesOf } from "./folder-entries.js";

/**
 * The transcript `<projects>/<folder>/<sessionId>.jsonl` of a session in any project folder of
 * the CLI home's `projects` folder (the pinned CLI's `--resume` finds a session of another working
 * directory too): a regular file (a link is not followed); of several, the last modified, which
 * the CLI resumes. `undefined` when there is none.
 * @param sessionId - a session id already checked to be a UUID (it names a file).
 */
export async function findTranscript(projects: string, sessionId: string): Promise<string | undefined> {
  let found: { path: string; modifiedMs: number } | undefined;
  for (const folder of await entriesOf(projects)) {
    if (!folder.isDirectory()) continue;
    const path = join(projects, folder.name, `${sessionId}.jsonl`);
    const stat = await lstat(path).catch(() => undefined);
    if (stat?.isFile() && (found === undefined || stat.mtimeMs > found.modifiedMs)) found = { path, modifiedMs: stat.mtimeMs };
  }
  return found?.path;
}
