import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Options of {@link claudeTestEnv}. Give `baseUrl` or `server` (`baseUrl` wins when both are set). */
export interface ClaudeTestEnvOptions {
  /** `ANTHROPIC_BASE_URL` for the CLI, e.g. `http://127.0.0.1:41234`. */
  readonly baseUrl?: string;
  /** A running scripted server (e.g. from `startAnthropicServer`); its `url` becomes `ANTHROPIC_BASE_URL`. */
  readonly server?: { readonly url: string };
  /** Extra variables added last (they override the defaults). Default: none. */
  readonly env?: Readonly<Record<string, string>>;
  /** Parent directory of the temp root. Default: `os.tmpdir()`. Keep it short, see {@link claudeTestEnv}. */
  readonly parentDir?: string;
}

/** An isolated home, config dir, TMPDIR and workspace for one run of the claude CLI. */
export interface ClaudeTestEnv extends AsyncDisposable {
  /**
   * The complete child environment (pass it as `env` to spawn, not merged into `process.env`):
   * `PATH` (from this process), `HOME`, `CLAUDE_CONFIG_DIR`, `TMPDIR`, `ANTHROPIC_BASE_URL`,
   * `ANTHROPIC_API_KEY=dummy`, the telemetry / auto-update / error-reporting / nonessential-traffic
   * switches, `CLAUDE_CODE_MAX_RETRIES=0`, and `IS_SANDBOX=1` when running as root.
   */
  readonly env: Readonly<Record<string, string>>;
  /** The temp root that holds everything below; removed by `cleanup()`. */
  readonly root: string;
  /** `HOME` of the CLI (`<root>/home`). */
  readonly home: string;
  /** `CLAUDE_CONFIG_DIR` (`<home>/.claude`): settings, `.claude.json`, `projects/<cwd>/<session>.jsonl` transcripts. */
  readonly configDir: string;
  /** `TMPDIR` of the CLI (`<root>/tmp`). */
  readonly tmpDir: string;
  /** An empty workspace to use as the CLI's cwd (`<root>/work`). */
  readonly workDir: string;
  /** Removes the whole temp root. Idempotent. */
  cleanup(): Promise<void>;
}

/**
 * Creates a fresh temp root with a home, config dir, TMPDIR and workspace for the claude CLI,
 * and the full child environment pointing the CLI at a scripted Anthropic server. Nothing is
 * copied from `process.env` except `PATH`, so the developer's own credentials
 * (`ANTHROPIC_AUTH_TOKEN`, `CLAUDE_CODE_USE_BEDROCK`, ...) never reach the child.
 *
 * TMPDIR, checked with claude 2.1.332 (text, tool, 400 and interrupt runs as root): setting `TMPDIR`
 * is enough. The CLI takes its temp dir from `CLAUDE_CODE_TMPDIR`, else `os.tmpdir()`, which
 * follows `TMPDIR`; its per-user dir (with leftover `fswatch-probe-*` dirs) became
 * `$TMPDIR/claude-0/` and its messaging socket dir `$TMPDIR/cc-socks/`, and nothing was written to
 * `/tmp/claude-0`, `/tmp/cc-socks` or the real `~`. The socket path must stay within 103 bytes,
 * or the CLI falls back to `/tmp/cc-socks-<uid>/`, hence the short temp root names (`cc-XXXXXX`);
 * keep `parentDir` short. `XDG_RUNTIME_DIR` (not set here) would take precedence for the socket.
 *
 * Rejects with a `TypeError` when neither `baseUrl` nor `server` is given, or with the file
 * system error if the directories cannot be made.
 */
export async function claudeTestEnv(options: ClaudeTestEnvOptions): Promise<ClaudeTestEnv> {
  const baseUrl = options.baseUrl ?? options.server?.url;
  if (baseUrl === undefined || baseUrl === "") {
    throw new TypeError("claudeTestEnv: options.baseUrl or options.server is required");
  }
  const root = await mkdtemp(join(options.parentDir ?? tmpdir(), "cc-"));
  const home = join(root, "home");
  const configDir = join(home, ".claude");
  const tmpDir = join(root, "tmp");
  const workDir = join(root, "work");
  await Promise.all([mkdir(configDir, { recursive: true }), mkdir(tmpDir), mkdir(workDir)]);

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    TMPDIR: tmpDir,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: "dummy",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_NON_ESSENTIAL_MODEL_CALLS: "1",
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE: "1",
    CLAUDE_CODE_MAX_RETRIES: "0",
    ...(process.getuid?.() === 0 ? { IS_SANDBOX: "1" } : {}),
    ...options.env,
  };

  let removing: Promise<void> | undefined;
  const cleanup = (): Promise<void> => {
    removing ??= rm(root, { recursive: true, force: true, maxRetries: 3 });
    return removing;
  };
  return { env, root, home, configDir, tmpDir, workDir, cleanup, [Symbol.asyncDispose]: cleanup };
}
