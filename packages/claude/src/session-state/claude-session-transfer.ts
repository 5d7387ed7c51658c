import { readdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { SessionFile, SessionFileSlice, SessionLocation, SessionTransfer } from "@adaptor/driver";
import {
  appendSessionFile,
  checkSessionFolders,
  mergeChildEnv,
  readSessionFile,
  readSessionFileFrom,
  unlinkPlantedLinks,
  writeSessionFile,
} from "@adaptor/driver/process";
import { CLAUDE_INHERITED_ENV, type ClaudeConfig } from "../config.js";
import { readCheckpointData } from "../session/checkpoint-data.js";

/** The export layout: one file, the session transcript. */
export const CLAUDE_SESSION_FORMAT = "claude-session/v1";
/** The logical name of the transcript in an export. */
const TRANSCRIPT = "transcript.jsonl";
/** Session ids are UUIDs; anything else never becomes part of a path. */
export const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Longest project folder name the CLI uses before it shortens a path and adds a hash. */
export const MAX_PROJECT_DIR = 200;

/**
 * The project folder the CLI keeps a cwd's transcripts in: every character other than an ASCII
 * letter or digit becomes `-`. A longer name than the CLI keeps whole gets our own suffix instead
 * of the CLI's hash; `--resume` still finds it, because the CLI looks for a session id in every
 * project folder.
 */
export function claudeProjectDir(cwd: string): string {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, "-");
  return name.length <= MAX_PROJECT_DIR ? name : `${name.slice(0, MAX_PROJECT_DIR)}-adaptor`;
}

/** The environment a CLI run with the extra environment `env` gets (merged as the child gets it). */
function claudeChildEnv(config: ClaudeConfig, env: Readonly<Record<string, string>> | undefined): Record<string, string | undefined> {
  return mergeChildEnv({
    inheritEnv: config.inheritEnv,
    defaultInherit: CLAUDE_INHERITED_ENV,
    layers: [config.env, config.configDir ? { CLAUDE_CONFIG_DIR: config.configDir } : undefined, env],
  });
}

/**
 * The `projects` folder of the CLI home a run with the extra environment `env` uses
 * (`configDir`, else `CLAUDE_CONFIG_DIR`, else `~/.claude`): one folder per working directory.
 */
export function claudeProjectsDir(config: ClaudeConfig, env: Readonly<Record<string, string>> | undefined): string {
  const merged = claudeChildEnv(config, env);
  return join(merged.CLAUDE_CONFIG_DIR ?? join(merged.HOME ?? homedir(), ".claude"), "projects");
}

/** Where a Claude session's transcript is kept. */
interface TranscriptPaths {
  /** The CLI home: `CLAUDE_CONFIG_DIR`, else `~/.claude`. */
  readonly configDir: string;
  /** Its `projects` folder, one folder per working directory. */
  readonly projects: string;
  /** The transcript in the working directory's own project folder. */
  readonly own: string;
}

/**
 * The transcript paths of session `resumeId` for a CLI run with the environment `env` (merged as
 * the child gets it) in `cwd`.
 * @throws TypeError for a session id that is not a UUID.
 */
function transcriptPaths(env: Readonly<Record<string, string | undefined>>, cwd: string, resumeId: string): TranscriptPaths {
  if (!SESSION_ID.test(resumeId)) throw new TypeError(`claude session id must be a UUID, got ${JSON.stringify(resumeId)}`);
  const configDir = env.CLAUDE_CONFIG_DIR ?? join(env.HOME ?? homedir(), ".claude");
  const projects = join(configDir, "projects");
  return { configDir, projects, own: join(projects, claudeProjectDir(cwd), `${resumeId}.jsonl`) };
}

/** The transcripts of session `resumeId` in any project folder below `projects`. */
async function copies(projects: string, resumeId: string): Promise<string[]> {
  let folders: string[];
  try {
    folders = await readdir(projects);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const folder of folders) {
    try {
      if ((await readdir(join(projects, folder))).includes(`${resumeId}.jsonl`)) found.push(join(projects, folder, `${resumeId}.jsonl`));
    } catch {
      // not a folder
    }
  }
  return found;
}

/**
 * Removes links planted in place of the transcript of session `resumeId` (in any project folder,
 * and in place of a folder above it; see `unlinkPlantedLinks`) of a CLI process launched with
 * `env` in `cwd`, before that process is ended: claude appends its exit lines to its transcript by
 * path, and must never write through a link to a file outside its home.
 * @throws TypeError for a session id that is not a UUID; the I/O error of a failed `lstat` or `unlink`.
 */
export async function unlinkPlantedTranscripts(
  launch: { readonly env: Readonly<Record<string, string | undefined>>; readonly cwd: string },
  resumeId: string,
): Promise<void> {
  const { configDir, projects, own } = transcriptPaths(launch.env, launch.cwd, resumeId);
  await unlinkPlantedLinks(configDir, [own, ...(await copies(projects, resumeId)).filter((path) => path !== own)]);
}

/**
 * Moves a Claude session between hosts: the transcript `$CLAUDE_CONFIG_DIR/projects/<cwd
 * folder>/<session id>.jsonl` (config dir: `configDir`, else `CLAUDE_CONFIG_DIR` of the run's env,
 * else `~/.claude`). An import writes it under this host's cwd folder, removing copies in other
 * project folders, so workers with different working directories continue one conversation.
 * Subagent transcripts, file-edit history, todos and the title file are not carried: `--resume`
 * does not need them, and the transcript carries a title's `custom-title` entry, which claude writes
 * again at the end once later turns push it out of the last 64 KiB.
 */
export function claudeSessionTransfer(
  config: ClaudeConfig,
  evict: (resumeId: string) => Promise<void>,
  parked: (resumeId: string) => boolean,
): SessionTransfer {
  const where = (location: SessionLocation): TranscriptPaths =>
    transcriptPaths(claudeChildEnv(config, location.env), location.cwd ?? config.cwd ?? process.cwd(), location.resumeId);
  const holdsCheckpoint = (location: SessionLocation): ((content: Buffer) => boolean) => {
    const last = readCheckpointData(location.data)?.lastMessageId;
    const marker = last ? Buffer.from(`"uuid":"${last}"`) : undefined;
    return (content) => marker === undefined || content.includes(marker);
  };
  // This host's own path first; the other project folders are listed only when it has no copy there.
  // A path below a link planted in place of a session folder is refused, not read through.
  const paths = async function* (location: SessionLocation): AsyncGenerator<string> {
    const { configDir, projects, own } = where(location);
    await checkSessionFolders(configDir, own);
    yield own;
    for (const path of await copies(projects, location.resumeId)) {
      if (path === own) continue;
      await checkSessionFolders(configDir, path);
      yield path;
    }
  };
  return {
    format: CLAUDE_SESSION_FORMAT,
    parked: (location) => parked(location.resumeId),
    async exportSession(location, signal): Promise<readonly SessionFile[] | undefined> {
      const holds = holdsCheckpoint(location);
      for await (const path of paths(location)) {
        const content = await readSessionFile(path, holds, signal);
        if (content) return [{ name: TRANSCRIPT, content }];
      }
      return undefined;
    },
    async exportSessionFrom(location, from, signal): Promise<readonly SessionFileSlice[] | undefined> {
      const holds = holdsCheckpoint(location);
      for await (const path of paths(location)) {
        const part = await readSessionFileFrom(path, from(TRANSCRIPT), holds, signal);
        if (part) return [{ name: TRANSCRIPT, ...part }];
      }
      return undefined;
    },
    async appendSession(location, slices, signal): Promise<void> {
      signal?.throwIfAborted();
      const [transcript, ...unknown] = slices;
      if (!transcript || transcript.name !== TRANSCRIPT || unknown.length > 0)
        throw new TypeError(`claude session append: expected exactly ${TRANSCRIPT}, got ${slices.map((f) => f.name).join(", ")}`);
      const { configDir, projects, own } = where(location);
      await checkSessionFolders(configDir, own, "append session file");
      // Only a copy at this host's own path, and no other, is completed; else the import writes it whole.
      if ((await copies(projects, location.resumeId)).some((path) => path !== own))
        throw new Error(`claude session append: ${location.resumeId} has copies in other project folders`);
      await evict(location.resumeId);
      await appendSessionFile(own, transcript.offset, transcript.content);
    },
    async importSession(location, files, signal): Promise<void> {
      signal?.throwIfAborted();
      const transcript = files.find((file) => file.name === TRANSCRIPT);
      const unknown = files.find((file) => file.name !== TRANSCRIPT);
      if (!transcript || unknown)
        throw new TypeError(`claude session import: expected exactly ${TRANSCRIPT}, got ${files.map((f) => f.name).join(", ")}`);
      const { configDir, projects, own } = where(location);
      const others = await copies(projects, location.resumeId);
      // A link planted in place of the transcript or a folder above it goes before the parked
      // process ends: it would append its exit lines through it, and the import would write there.
      await unlinkPlantedLinks(configDir, [own, ...others]);
      await evict(location.resumeId);
      await writeSessionFile(own, transcript.content, others);
    },
  };
}
