import { readFile, realpath, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { configKeySetBy } from "../config-key.js";
import type { CodexConfig } from "../config.js";

/** A `projects."<path>"` table of codex's config with only its trust. */
export type ProjectTrustTable = Readonly<Record<string, { readonly trust_level: string }>>;

/** What {@link projectTrustPin} adds to the thread's opening request. */
export interface ProjectTrustPin {
  /** The `projects` table of the thread's `config`. */
  readonly projects: ProjectTrustTable;
  /**
   * `"on-request"` when the pinned trust is the driver's `"untrusted"` and nothing in the user's
   * config sets an approval policy: codex 0.171.0 takes `untrusted` as its default approval policy
   * for an untrusted folder, `on-request` for one its config says nothing about, so this keeps
   * codex's own policy what it would be without the pin. Used only when the run sets none.
   */
  readonly approvalPolicy?: "on-request";
}

/** The user's `config.toml` as far as {@link projectTrustPin} reads it. */
type UserConfig = Readonly<Record<string, unknown>>;

/**
 * What to send with `thread/start` / `thread/resume` / `thread/fork` when the thread is opened
 * with a `sandbox` of `workspace-write` or `danger-full-access`: the working directory `cwd` (as
 * given and resolved) with the trust the user's own `config.toml` (under `codexHome`) already
 * gives it (its entry, else its git repository's, a worktree's main repository's included), else
 * `"untrusted"`. Opened with such a sandbox on a folder whose trust its config does not hold,
 * codex 0.171.0 writes `trust_level = "trusted"` for it into that `config.toml` for good, and
 * then loads the folder's own `.codex/config.toml` (MCP servers, settings) on every later run.
 * With the trust given here its config holds one, so codex writes nothing, and a folder the user
 * trusted keeps its project settings. `undefined` when the host sets a `projects.*` key itself
 * (`configOverrides` or `-c` in `extraArgs`): its own choice stands.
 */
export async function projectTrustPin(config: CodexConfig, codexHome: string, cwd: string): Promise<ProjectTrustPin | undefined> {
  const args = config.extraArgs ?? [];
  const hostKeys = [...Object.keys(config.configOverrides ?? {}), ...args.map((arg, i) => configKeySetBy(arg, args[i + 1]))];
  if (hostKeys.some((key) => key === "projects" || key?.startsWith("projects.") === true)) return undefined;
  const user = await userConfig(join(codexHome, "config.toml"));
  const real = await realpath(cwd).catch(() => cwd);
  const level = await projectTrustLevel(user?.["projects"], cwd);
  const trust = { trust_level: level ?? "untrusted" };
  const pinned = { [cwd]: trust, [real]: trust };
  if (level !== undefined) return { projects: pinned };
  // The approval policy a profile or the config sets wins over codex's default for the folder.
  const profileArg = args.findIndex((arg) => arg === "-p" || arg === "--profile" || arg.startsWith("--profile="));
  const setsPolicy =
    profileArg !== -1 ||
    hostKeys.includes("profile") ||
    user?.["approval_policy"] !== undefined ||
    (typeof user?.["profile"] === "string" && table(table(user["profiles"])?.[user["profile"]])?.["approval_policy"] !== undefined);
  return setsPolicy ? { projects: pinned } : { projects: pinned, approvalPolicy: "on-request" };
}

/**
 * The trust codex's `projects` table (`projects`, as parsed from its config) gives the working
 * directory `cwd`: the entry of `cwd` itself (as given, then resolved), else of its git
 * repository's root (a linked worktree's main repository's); `undefined` when none of them has a
 * `trust_level` of `"trusted"` or `"untrusted"`.
 */
export async function projectTrustLevel(projects: unknown, cwd: string): Promise<"trusted" | "untrusted" | undefined> {
  const entries = table(projects);
  if (!entries) return undefined;
  const real = await realpath(cwd).catch(() => cwd);
  const root = await repositoryRoot(real);
  // The folders whose entry codex reads for cwd, the first found applies.
  return [cwd, real, root]
    .map((folder) => (folder === undefined ? undefined : table(entries[folder])?.["trust_level"]))
    .find((value): value is "trusted" | "untrusted" => value === "trusted" || value === "untrusted");
}

function table(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * The user's `config.toml`, parsed; `undefined` when there is none or it does not parse (codex then
 * refuses to start anyway). The TOML parser is loaded here, by the first thread opened with a
 * sandbox that lets codex write, not at the package's import (a host's cold start).
 */
async function userConfig(path: string): Promise<UserConfig | undefined> {
  try {
    const text = await readFile(path, "utf8");
    const { parse } = await import("smol-toml");
    return parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The working tree root of the git repository holding `folder`, for a linked worktree the main
 * repository's (as codex keys a worktree's trust); `undefined` outside a repository.
 */
async function repositoryRoot(folder: string): Promise<string | undefined> {
  for (let dir = folder; ; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    const info = await stat(dotGit).catch(() => undefined);
    if (info?.isDirectory()) return dir;
    if (info?.isFile()) return (await worktreeMainRoot(dotGit)) ?? dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** For a `.git` file (`gitdir: <repo>/.git/worktrees/<name>`), the main repository's working tree root. */
async function worktreeMainRoot(dotGitFile: string): Promise<string | undefined> {
  const line = /^gitdir:\s*(.+?)\s*$/m.exec(await readFile(dotGitFile, "utf8").catch(() => ""));
  if (!line?.[1]) return undefined;
  const gitDir = resolve(dirname(dotGitFile), line[1]);
  const common = (await readFile(join(gitDir, "commondir"), "utf8").catch(() => "")).trim();
  if (!common) return undefined;
  const commonDir = isAbsolute(common) ? common : resolve(gitDir, common);
  return basename(commonDir) === ".git" ? dirname(commonDir) : undefined;
}
