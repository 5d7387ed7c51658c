import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Options of {@link codexTestEnv}. Give `baseUrl` or `server` (`baseUrl` wins when both are set). */
export interface CodexTestEnvOptions {
  /** The provider's `base_url`, with the `/v1` suffix, e.g. `http://127.0.0.1:41234/v1`. */
  readonly baseUrl?: string;
  /** A running scripted server (e.g. from `startOpenAIServer`); its `baseUrl` is used. */
  readonly server?: { readonly baseUrl: string };
  /** Model slug written to config.toml. Default `"gpt-5.5"` (a slug codex 0.171.0 knows; unknown slugs lose `apply_patch`). */
  readonly model?: string;
  /**
   * Which model provider config.toml names. `"fake"` (the default): a custom provider on the base
   * URL with retries 0 and no websockets ({@link codexConfigToml}). `"openai"`: codex's built-in
   * provider pointed at the base URL with `openai_base_url` (the route a user takes), keeping its
   * own retry settings; codex 0.171.0 then opens each turn with up to 5 websocket tries
   * (`Reconnecting... n/5`, which the scripted server refuses with a 404) before it falls back to
   * HTTP POST, about 6 s in all. The environment then also holds `CODEX_API_KEY=dummy`.
   */
  readonly provider?: "fake" | "openai";
  /** Extra TOML appended to config.toml; start it with a `[table]` header. Default none. */
  readonly extraToml?: string;
  /** Extra variables added last (they override the defaults). Default: none. */
  readonly env?: Readonly<Record<string, string>>;
  /** Parent directory of the temp root. Default: `os.tmpdir()`. */
  readonly parentDir?: string;
}

/** An isolated home, `CODEX_HOME`, TMPDIR and workspace for one run of the codex CLI. */
export interface CodexTestEnv extends AsyncDisposable {
  /**
   * The complete child environment (pass it as the spawn `env`, not merged into `process.env`):
   * `PATH` (from this process), `HOME`, `CODEX_HOME`, `TMPDIR`, `FAKE_OPENAI_KEY=dummy` (the
   * provider's `env_key`), `CODEX_API_KEY=dummy` with `provider` `"openai"`, and `RUST_LOG=warn`.
   */
  readonly env: Readonly<Record<string, string>>;
  /** The temp root that holds everything below; removed by `cleanup()`. */
  readonly root: string;
  /** `HOME` of the CLI (`<root>/home`). */
  readonly home: string;
  /** `CODEX_HOME` (`<home>/.codex`): config.toml, `sessions/YYYY/MM/DD/rollout-*.jsonl`, SQLite state. */
  readonly codexHome: string;
  /** `<codexHome>/config.toml`. */
  readonly configPath: string;
  /** `TMPDIR` of the CLI (`<root>/tmp`). */
  readonly tmpDir: string;
  /** An empty workspace to use as the CLI's cwd (`<root>/work`). */
  readonly workDir: string;
  /** The model slug written to config.toml. */
  readonly model: string;
  /** Removes the whole temp root. Idempotent. */
  cleanup(): Promise<void>;
}

/**
 * The config.toml of {@link codexTestEnv} (docs/protocols.md "Configuration"): the model, a custom
 * `fake` provider on `baseUrl` speaking the Responses wire API with retries 0 (or, with `provider`
 * `"openai"`, codex's built-in provider with `openai_base_url` set to `baseUrl`), plugins and remote
 * plugins off (else start-up runs `git ls-remote`), analytics, feedback and update checks off,
 * OpenTelemetry exporter none.
 */
export function codexConfigToml(baseUrl: string, model = "gpt-5.5", provider: "fake" | "openai" = "fake"): string {
  const providerLines =
    provider === "openai"
      ? [`openai_base_url = ${JSON.stringify(baseUrl)}`, `check_for_update_on_startup = false`, ``]
      : [
          `model_provider = "fake"`,
          `check_for_update_on_startup = false`,
          ``,
          `[model_providers.fake]`,
          `name = "Fake"`,
          `base_url = ${JSON.stringify(baseUrl)}`,
          `wire_api = "responses"`,
          `env_key = "FAKE_OPENAI_KEY"`,
          `request_max_retries = 0`,
          `stream_max_retries = 0`,
          ``,
        ];
  return [
    `model = ${JSON.stringify(model)}`,
    ...providerLines,
    `[features]`,
    `plugins = false`,
    `remote_plugin = false`,
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    `[feedback]`,
    `enabled = false`,
    ``,
    `[otel]`,
    `exporter = "none"`,
    ``,
  ].join("\n");
}

/**
 * Creates a fresh temp root with a home, `CODEX_HOME` (with {@link codexConfigToml}), TMPDIR and
 * workspace for the codex CLI, and the full child environment pointing it at a scripted OpenAI
 * Responses server. Nothing is copied from `process.env` except `PATH`, so the developer's own
 * `OPENAI_API_KEY` or `~/.codex` never reach the child.
 *
 * Seen with codex 0.171.0: a `CODEX_HOME` under a temp dir makes codex print "Refusing to create
 * helper binaries under temporary dir" on stderr (harmless).
 *
 * Rejects with a `TypeError` when neither `baseUrl` nor `server` is given, or with the file
 * system error if the directories cannot be made.
 */
export async function codexTestEnv(options: CodexTestEnvOptions): Promise<CodexTestEnv> {
  const baseUrl = options.baseUrl ?? options.server?.baseUrl;
  if (baseUrl === undefined || baseUrl === "") {
    throw new TypeError("codexTestEnv: options.baseUrl or options.server is required");
  }
  const model = options.model ?? "gpt-5.5";
  const root = await mkdtemp(join(options.parentDir ?? tmpdir(), "cx-"));
  const home = join(root, "home");
  const codexHome = join(home, ".codex");
  const tmpDir = join(root, "tmp");
  const workDir = join(root, "work");
  await Promise.all([mkdir(codexHome, { recursive: true }), mkdir(tmpDir), mkdir(workDir)]);
  const configPath = join(codexHome, "config.toml");
  await writeFile(configPath, codexConfigToml(baseUrl, model, options.provider) + (options.extraToml ? `\n${options.extraToml}\n` : ""));

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    CODEX_HOME: codexHome,
    TMPDIR: tmpDir,
    FAKE_OPENAI_KEY: "dummy",
    ...(options.provider === "openai" ? { CODEX_API_KEY: "dummy" } : {}),
    RUST_LOG: "warn",
    ...options.env,
  };

  let removing: Promise<void> | undefined;
  const cleanup = (): Promise<void> => {
    removing ??= rm(root, { recursive: true, force: true, maxRetries: 3 });
    return removing;
  };
  return { env, root, home, codexHome, configPath, tmpDir, workDir, model, cleanup, [Symbol.asyncDispose]: cleanup };
}
