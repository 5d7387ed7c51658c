import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Options of {@link geminiTestEnv}. Give `baseUrl` or `server` (`baseUrl` wins when both are set). */
export interface GeminiTestEnvOptions {
  /** `GOOGLE_GEMINI_BASE_URL` for the CLI, e.g. `http://127.0.0.1:41234`. */
  readonly baseUrl?: string;
  /** A running scripted server (e.g. from `startGeminiServer`); its `url` is used. */
  readonly server?: { readonly url: string };
  /** Extra keys merged over the top level of settings.json. Default: none. */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Extra variables added last (they override the defaults). Default: none. */
  readonly env?: Readonly<Record<string, string>>;
  /** Parent directory of the temp root. Default: `os.tmpdir()`. */
  readonly parentDir?: string;
}

/** An isolated home, `GEMINI_CLI_HOME`, TMPDIR and workspace for one run of gemini-cli. */
export interface GeminiTestEnv extends AsyncDisposable {
  /**
   * The complete child environment (pass it as the driver's `env` with `inheritEnv: false`):
   * `PATH` (from this process), `HOME`, `GEMINI_CLI_HOME`, `TMPDIR`, `GOOGLE_GEMINI_BASE_URL`,
   * `GEMINI_API_KEY=dummy`, `NO_COLOR=1`.
   */
  readonly env: Readonly<Record<string, string>>;
  /** The temp root that holds everything below; removed by `cleanup()`. */
  readonly root: string;
  /** `HOME` and `GEMINI_CLI_HOME` of the CLI (`<root>/home`); settings live in `<home>/.gemini/settings.json`. */
  readonly home: string;
  /** `<home>/.gemini/settings.json`. */
  readonly settingsPath: string;
  /** `TMPDIR` of the CLI (`<root>/tmp`). */
  readonly tmpDir: string;
  /** An empty workspace to use as the CLI's cwd (`<root>/work`). */
  readonly workDir: string;
  /** Removes the whole temp root. Idempotent. */
  cleanup(): Promise<void>;
}

/**
 * The settings.json of {@link geminiTestEnv}: usage statistics, telemetry, auto-update and the
 * update nag off, folder trust off, and auth type `gemini-api-key` (with `GOOGLE_GEMINI_BASE_URL`
 * set the CLI would otherwise pick `gateway`, which it then refuses with exit 41).
 */
export function geminiSettings(extra: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  return {
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    security: { folderTrust: { enabled: false }, auth: { selectedType: "gemini-api-key" } },
    ...extra,
  };
}

/**
 * Makes an isolated environment for gemini-cli against a scripted Gemini API server: a temp root
 * with `home/.gemini/settings.json` ({@link geminiSettings}), `tmp` and `work`.
 *
 * @throws TypeError when neither `baseUrl` nor `server` is given.
 */
export async function geminiTestEnv(options: GeminiTestEnvOptions): Promise<GeminiTestEnv> {
  const baseUrl = options.baseUrl ?? options.server?.url;
  if (baseUrl === undefined || baseUrl === "") throw new TypeError("geminiTestEnv: options.baseUrl or options.server is required");
  const root = await mkdtemp(join(options.parentDir ?? tmpdir(), "gm-"));
  const home = join(root, "home");
  const settingsPath = join(home, ".gemini", "settings.json");
  const tmpDir = join(root, "tmp");
  const workDir = join(root, "work");
  await Promise.all([mkdir(join(home, ".gemini"), { recursive: true }), mkdir(tmpDir), mkdir(workDir)]);
  await writeFile(settingsPath, JSON.stringify(geminiSettings(options.settings), null, 2) + "\n");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    GEMINI_CLI_HOME: home,
    TMPDIR: tmpDir,
    GOOGLE_GEMINI_BASE_URL: baseUrl,
    GEMINI_API_KEY: "dummy",
    NO_COLOR: "1",
    ...options.env,
  };
  let removing: Promise<void> | undefined;
  const cleanup = (): Promise<void> => {
    removing ??= rm(root, { recursive: true, force: true, maxRetries: 3 });
    return removing;
  };
  return { env, root, home, settingsPath, tmpDir, workDir, cleanup, [Symbol.asyncDispose]: cleanup };
}
