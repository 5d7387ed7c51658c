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
   * Puts each path of `sources` back as the tree it maps to holds it: a path the tree holds is
   * written back byte for byte with its mode, one it lacks is removed (and directories left empty
   * by that removal with it). Every other file is left as it is, and so is a path (returned, sorted)
   * that the workspace no longer lets be put back safely: one under a folder that is now a symbolic
   * link or a file, or whose folder resolves outside the workspace; one to be written where a
   * directory now stands; one to be removed that is a directory now, or that the project's
   * `.gitignore` (as written back) ignores.
   */
  async restorePaths(key: string, sources: ReadonlyMap<string, string>, signal?: AbortSignal): Promise<string[]> {
    if (sources.size === 0) return [];
    const left = new Set<string>();
    const absent: string[] = [];
    const writes = new Map<string, string[]>();
    const held = new Map<string, Set<string>>();
    for (const [p, tree] of sources) {
      let inTree = held.get(tree);
      if (!inTree) {
        const out = await this.#run(["ls-tree", "-r", "-z", "--name-only", "--full-tree", tree], undefined, signal);
        inTree = new Set(out.split("\0").filter((name) => name !== ""));
        held.set(tree, inTree);
      }
      if (inTree.has(p)) writes.set(tree, [...(writes.get(tree) ?? []), p]);
      else absent.push(p);
    }
    // The project's .gitignore files first, so the removals below can ask them what they ignore
    // (one a directory still stands in the way of waits for the removals).
    const ignoreFiles = new Map<string, string[]>();
    for (const [tree, paths] of writes) {
      const now: string[] = [];
      for (const p of paths) {
        if (path.basename(p) === ".gitignore" && ["none", "other"].includes(await this.#stand(p))) now.push(p);
      }
      if (now.length === 0) continue;
      ignoreFiles.set(tree, now);
      writes.set(
        tree,
        paths.filter((p) => !now.includes(p)),
      );
    }
    await this.#writeBack(key, ignoreFiles, left, signal);
    const removable: string[] = [];
    for (const p of absent) {
      const there = await this.#stand(p);
      if (there === "blocked" || there === "directory") left.add(p);
      else if (there === "other") removable.push(p);
    }
    for (const p of await this.#ignored(key, removable, signal)) left.add(p);
    // Deepest first, so a file that replaced a directory (or the reverse) can be written back.
    for (const p of removable.filter((r) => !left.has(r)).sort((x, y) => y.length - x.length)) {
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
    await this.#writeBack(key, writes, left, signal);
    // Fresh stat data, so the next snapshot need not hash every file again.
    await this.#run(["update-index", "-q", "--refresh"], key, signal, false).catch(() => undefined);
    return [...left].sort();
  }

  /**
   * Writes back each tree's paths as that tree holds them, except those a directory, a symbolic
   * link or a file stands in the way of (added to `left`).
   */
  async #writeBack(key: string, writes: ReadonlyMap<string, readonly string[]>, left: Set<string>, signal?: AbortSignal): Promise<void> {
    for (const [tree, paths] of writes) {
      const safe: string[] = [];
      for (const p of paths) {
        const there = await this.#stand(p);
        if (there === "blocked" || there === "directory") left.add(p);
        else safe.push(p);
      }
      if (safe.length === 0) continue;
      await this.#run(["read-tree", tree], key, signal);
      for (let i = 0; i < safe.length; i += 500) {
        await this.#run(["checkout-index", "--force", "--quiet", "--", ...safe.slice(i, i + 500)], key, signal);
      }
    }
  }

  /**
   * What stands at workspace-relative `p` now: `blocked` when a folder above it is a symbolic
   * link, a file or anything but a directory, or resolves outside the workspace (writing or
   * removing there would reach another file); else `directory`, `other` (a file, a link, …) or
   * `none`.
   */
  async #stand(p: string): Promise<"blocked" | "directory" | "other" | "none"> {
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++) {
      const info = await lstat(path.join(this.#cwd, ...parts.slice(0, i))).catch(() => undefined);
      if (!info) return "none";
      if (!info.isDirectory()) return "blocked";
    }
    const parent = await realpath(path.dirname(path.join(this.#cwd, p))).catch(() => undefined);
    const rel = parent === undefined ? ".." : path.relative(this.#cwd, parent);
    if (rel.startsWith("..") || path.isAbsolute(rel)) return "blocked";
    const info = await lstat(path.join(this.#cwd, p)).catch(() => undefined);
    return !info ? "none" : info.isDirectory() ? "directory" : "other";
  }

  /** Those of `paths` the workspace's `.gitignore` files (as they are now) ignore. */
  async #ignored(key: string, paths: readonly string[], signal?: AbortSignal): Promise<string[]> {
    if (paths.length === 0) return [];
    const out = await this.#run(["check-ignore", "--no-index", "-z", "--stdin"], key, signal, true, {
      input: paths.join("\0") + "\0",
      // check-ignore refuses literal pathspecs; it reads each line as one path all the same.
      literal: false,
    }).catch((error: unknown) => {
      // Exit status 1: none of them is ignored.
      if (error instanceof FileCheckpointError && (error.cause as { code?: unknown } | undefined)?.code === 1) return "";
      throw error;
    });
    return out.split("\0").filter((name) => name !== "");
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

  /**
   * Runs git on the shadow repository (with `key`'s index and excludes when given), `extra.input`
   * on its stdin, pathspecs literal unless `extra.literal` is false; resolves stdout.
   */
  #run(
    args: string[],
    key: string | undefined,
    signal?: AbortSignal,
    withTree = true,
    extra: { input?: string; literal?: boolean } = {},
  ): Promise<string> {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !name.startsWith("GIT_")) env[name] = value;
    }
    Object.assign(env, {
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      ...(extra.literal !== false ? { GIT_LITERAL_PATHSPECS: "1" } : {}),
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
      const child = execFile(
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
      child.stdin?.on("error", () => undefined);
      child.stdin?.end(extra.input ?? "");
    });
  }
}

/** The ref holding `key`'s turns. */
function refOf(key: string): string {
  return `refs/adaptor/threads/${hash(key)}`;
}
