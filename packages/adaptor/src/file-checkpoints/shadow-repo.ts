import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { lstat, mkdir, realpath, rm, rmdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { FileCheckpointError } from "../errors/file-checkpoint-error.js";
import type { FileCheckpointOptions } from "./file-checkpoint-options.js";

/** A tree of the workspace as git stored it, and the files left out of it for their size. */
export interface Snapshot {
  /** The git tree id. */
  readonly tree: string;
  /** Workspace-relative paths over the size cap, not in the tree. */
  readonly skipped: readonly string[];
}

/** A stored turn: its commit and the JSON it carries. */
export interface StoredTurn {
  readonly commit: string;
  readonly tree: string;
  readonly entry: unknown;
}

const NO_REF = "0".repeat(40);

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}

/** `p` as a gitignore pattern matching exactly that workspace-relative path. */
function literalPattern(p: string): string {
  return "/" + p.replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`);
}

/**
 * A workspace's snapshots in git's object store kept outside it (`--git-dir` in the checkpoint
 * directory, `--work-tree` the workspace): one bare repository per workspace, and per thread its
 * own index and a ref whose commits are that thread's checkpointed turns (newest at the tip).
 * Git reads the project's `.gitignore` files; the user's and the system's git config and excludes
 * are not read, and the workspace's own `.git` is never touched.
 */
export class ShadowRepo {
  readonly #git: string;
  readonly #gitDir: string;
  readonly #cwd: string;
  readonly #maxFileBytes: number;

  private constructor(git: string, gitDir: string, cwd: string, maxFileBytes: number) {
    this.#git = git;
    this.#gitDir = gitDir;
    this.#cwd = cwd;
    this.#maxFileBytes = maxFileBytes;
  }

  /**
   * Opens (creating if needed) the snapshots of the workspace `cwd` under `settings.dir`.
   * @throws FileCheckpointError `inside_workspace`, `git_missing`, `git_failed`.
   */
  static async open(cwd: string, settings: Required<FileCheckpointOptions>, signal?: AbortSignal): Promise<ShadowRepo> {
    const workspace = await realpath(cwd);
    await mkdir(settings.dir, { recursive: true });
    const dir = await realpath(settings.dir);
    const rel = path.relative(workspace, dir);
    if (rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))) {
      throw new FileCheckpointError(
        "inside_workspace",
        `file checkpoints: the checkpoint directory ${dir} is inside the workspace ${workspace}; choose one outside it`,
      );
    }
    const repo = new ShadowRepo(settings.git, path.join(dir, `${hash(workspace)}.git`), workspace, settings.maxFileBytes);
    const created = await stat(path.join(repo.#gitDir, "adaptor")).catch(() => undefined);
    if (!created?.isDirectory()) {
      await repo.#run(["init", "--bare", "--quiet", repo.#gitDir], undefined, signal, false);
      await mkdir(path.join(repo.#gitDir, "adaptor"), { recursive: true });
    }
    return repo;
  }

  /** Stores the workspace's files as they are now for thread `key`; nothing is recorded yet. */
  async snapshot(key: string, signal?: AbortSignal): Promise<Snapshot> {
    const skipped = await this.#excludeLarge(key, ["ls-files", "-z", "--others", "--modified", "--exclude-standard"], signal);
    if (skipped.length > 0) await this.#run(["rm", "--cached", "--quiet", "--ignore-unmatch", "--", ...skipped], key, signal);
    await this.#run(["add", "--all"], key, signal);
    const tree = (await this.#run(["write-tree"], key, signal)).trim();
    return { tree, skipped };
  }

  /**
   * Records a committed turn for `key` on top of `parent` (the tip its history had when the turn
   * began; `undefined`: none). Compare-and-swap: a tip that moved meanwhile fails with `git_failed`.
   */
  async append(key: string, snapshot: Snapshot, entry: unknown, parent: string | undefined, signal?: AbortSignal): Promise<string> {
    const commit = await this.commit(key, snapshot.tree, entry, parent, signal);
    await this.#run(["update-ref", refOf(key), commit, parent ?? NO_REF], key, signal);
    return commit;
  }

  /** A commit of `tree` carrying `entry` on top of `parent`, not yet on any history. */
  async commit(key: string, tree: string, entry: unknown, parent: string | undefined, signal?: AbortSignal): Promise<string> {
    const message = path.join(this.#gitDir, "adaptor", `${hash(key)}.msg`);
    await writeFile(message, JSON.stringify(entry));
    return (await this.#run(["commit-tree", tree, ...(parent ? ["-p", parent] : []), "-F", message], key, signal)).trim();
  }

  /** The tip of `key`'s history, or `undefined`. */
  async tip(key: string, signal?: AbortSignal): Promise<string | undefined> {
    try {
      return (await this.#run(["rev-parse", "--quiet", "--verify", `${refOf(key)}^{commit}`], key, signal)).trim();
    } catch (error) {
      if (error instanceof FileCheckpointError && error.reason === "git_failed") return undefined;
      throw error;
    }
  }

  /** `key`'s recorded turns, oldest first. */
  async history(key: string, signal?: AbortSignal): Promise<StoredTurn[]> {
    if (!(await this.tip(key, signal))) return [];
    const out = await this.#run(["log", "-z", "--format=%H %T%n%B", refOf(key)], key, signal);
    const turns: StoredTurn[] = [];
    for (const chunk of out.split("\0")) {
      if (!chunk.trim()) continue;
      const newline = chunk.indexOf("\n");
      const [commit = "", tree = ""] = chunk.slice(0, newline).split(" ");
      turns.push({ commit, tree, entry: JSON.parse(chunk.slice(newline + 1)) as unknown });
    }
    return turns.reverse();
  }

  /** Moves `key`'s history tip from `from` to `to` (`undefined`: no history left). */
  async truncate(key: string, from: string, to: string | undefined, signal?: AbortSignal): Promise<void> {
    await this.#run(to ? ["update-ref", refOf(key), to, from] : ["update-ref", "-d", refOf(key), from], key, signal);
  }

  /** The workspace-relative paths whose content, mode or presence differ between trees `a` and `b`, sorted. */
  async changedPaths(a: string, b: string, signal?: AbortSignal): Promise<string[]> {
    if (a === b) return [];
    const out = await this.#run(["diff-tree", "-r", "-z", "--no-renames", "--name-only", a, b], undefined, signal);
    return out
      .split("\0")
      .filter((p) => p !== "")
      .sort();
  }

  /**
   * Puts exactly `paths` back as `tree` holds them: a path the tree holds is written back byte for
   * byte with its mode, one it lacks is removed (and directories left empty by that removal with
   * it). Every other file is left as it is.
   */
  async restorePaths(key: string, tree: string, paths: readonly string[], signal?: AbortSignal): Promise<void> {
    if (paths.length === 0) return;
    await this.#run(["read-tree", tree], key, signal);
    const held = new Set((await this.#run(["ls-files", "-z"], key, signal)).split("\0").filter((p) => p !== ""));
    const absent = paths.filter((p) => !held.has(p));
    // Deepest first, so a file that replaced a directory (or the reverse) can be written back.
    for (const p of [...absent].sort((x, y) => y.length - x.length)) {
      // A directory standing there now is not the file the tree lacks: it is left alone.
      await rm(path.join(this.#cwd, p), { force: true }).catch(() => undefined);
      for (let dir = path.dirname(p); dir !== "." && dir !== "" && dir !== "/"; dir = path.dirname(dir)) {
        // Only a directory the removal left empty goes; rmdir fails on any other.
        if (
          !(await rmdir(path.join(this.#cwd, dir)).then(
            () => true,
            () => false,
          ))
        )
          break;
      }
    }
    const present = paths.filter((p) => held.has(p));
    for (let i = 0; i < present.length; i += 500) {
      await this.#run(["checkout-index", "--force", "--quiet", "--", ...present.slice(i, i + 500)], key, signal);
    }
    // Fresh stat data, so the next snapshot need not hash every file again.
    await this.#run(["update-index", "-q", "--refresh"], key, signal, false).catch(() => undefined);
  }

  /** Lists files with `listing`, writes the excludes for those over the cap and returns them. */
  async #excludeLarge(key: string, listing: string[], signal?: AbortSignal): Promise<string[]> {
    await writeFile(this.#excludesOf(key), "");
    const listed = (await this.#run(listing, key, signal)).split("\0").filter((p) => p !== "");
    const large: string[] = [];
    for (const file of new Set(listed)) {
      const info = await lstat(path.join(this.#cwd, file)).catch(() => undefined);
      if (info?.isFile() && info.size > this.#maxFileBytes) large.push(file);
    }
    await writeFile(this.#excludesOf(key), large.map((p) => literalPattern(p) + "\n").join(""));
    return large.sort();
  }

  #excludesOf(key: string): string {
    return path.join(this.#gitDir, "adaptor", `${hash(key)}.exclude`);
  }

  /** Runs git on the shadow repository (with `key`'s index and excludes when given); resolves stdout. */
  #run(args: string[], key: string | undefined, signal?: AbortSignal, withTree = true): Promise<string> {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !name.startsWith("GIT_")) env[name] = value;
    }
    Object.assign(env, {
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_LITERAL_PATHSPECS: "1",
      GIT_AUTHOR_NAME: "adaptor",
      GIT_AUTHOR_EMAIL: "adaptor@localhost",
      GIT_COMMITTER_NAME: "adaptor",
      GIT_COMMITTER_EMAIL: "adaptor@localhost",
      ...(key !== undefined ? { GIT_INDEX_FILE: path.join(this.#gitDir, "adaptor", `${hash(key)}.index`) } : {}),
    });
    const full = withTree
      ? [
          `--git-dir=${this.#gitDir}`,
          `--work-tree=${this.#cwd}`,
          "-c",
          `core.excludesFile=${key !== undefined ? this.#excludesOf(key) : "/dev/null"}`,
          "-c",
          "core.autocrlf=false",
          "-c",
          "core.safecrlf=false",
          "-c",
          "gc.auto=0",
          ...args,
        ]
      : args;
    return new Promise((resolve, reject) => {
      execFile(
        this.#git,
        full,
        { cwd: this.#cwd, env, maxBuffer: 256 * 1024 * 1024, encoding: "utf8", ...(signal ? { signal } : {}) },
        (error, stdout, stderr) => {
          if (!error) return resolve(stdout);
          if ((error as NodeJS.ErrnoException).code === "ENOENT") {
            return reject(
              new FileCheckpointError("git_missing", `file checkpoints need git: ${this.#git} was not found`, { cause: error }),
            );
          }
          if (signal?.aborted) return reject(signal.reason);
          reject(
            new FileCheckpointError("git_failed", `file checkpoints: git ${args[0] ?? ""} failed: ${stderr.trim() || error.message}`, {
              cause: error,
            }),
          );
        },
      );
    });
  }
}

/** The ref holding `key`'s turns. */
function refOf(key: string): string {
  return `refs/adaptor/threads/${hash(key)}`;
}
