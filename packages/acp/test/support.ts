import { existsSync, realpathSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  claudeTestEnv,
  codexTestEnv,
  geminiTestEnv,
  startAnthropicServer,
  startGeminiServer,
  startOpenAIServer,
  type AnthropicServer,
  type ClaudeTestEnv,
  type CodexTestEnv,
  type GeminiScriptRule,
  type GeminiServer,
  type GeminiTestEnv,
  type OpenAIServer,
  type RequestView,
  type ResponsesScriptRule,
  type ScriptRule,
  whenUserSays,
} from "@adaptor/testkit";
import { processGone } from "@adaptor/driver/kit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import {
  Agent,
  HumanDecisionModeUnsupportedError,
  PolicyCapabilityUnsupportedError,
  RunError,
  type AgentEvent,
  type AgentOptions,
  type ApprovalRequest,
  type RunOptions,
} from "adaptor";
import { afterEach, beforeEach, expect } from "vitest";
import type { DriverFixture, ScriptedTurns } from "@adaptor/driver/testing";
import { acp, gemini, type AcpConfig, type AcpDriver, type GeminiConfig } from "../src/index.js";

/** A scripted Gemini API server, an isolated gemini-cli environment and an Agent on the real binary. */
export interface GeminiHarness {
  readonly server: GeminiServer;
  readonly env: GeminiTestEnv;
  readonly agent: Agent;
  close(): Promise<void>;
}

/** The model the harness pins (`-m`), so no router call precedes a turn. */
export const GEMINI_TEST_MODEL = "gemini-2.5-flash";

export async function geminiHarness(
  rules: GeminiScriptRule[] = [],
  config: GeminiConfig = {},
  options: AgentOptions = {},
): Promise<GeminiHarness> {
  const server = await startGeminiServer({ rules });
  const env = await geminiTestEnv({ server });
  const settings: GeminiConfig = { cwd: env.workDir, env: env.env, inheritEnv: false, model: GEMINI_TEST_MODEL, ...config };
  // `model: undefined` in `config` means the CLI's own default.
  const agent = new Agent(gemini(Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined))), {
    threadStore: new MemoryThreadStore(),
    ...options,
  });
  return {
    server,
    env,
    agent,
    async close() {
      await agent.close();
      await server.close();
      await env.cleanup();
    },
  };
}

export async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** What {@link runDeciding} saw: the stream's events, each ask's label, and the run's rejection (if any). */
export interface DecidedRun {
  readonly events: AgentEvent[];
  readonly asked: string[];
  readonly error: unknown;
}

/**
 * Runs `prompt` and answers every ask with `decide`, recording each ask as `label(request)` (by
 * default its tool name).
 */
export async function runDeciding(
  agent: Agent,
  prompt: string,
  options: RunOptions,
  decide: (request: ApprovalRequest) => void,
  label: (request: ApprovalRequest) => string = (request) => String(request.toolName),
): Promise<DecidedRun> {
  const asked: string[] = [];
  const stream = agent.stream(prompt, {
    ...options,
    onApproval: (request) => {
      asked.push(label(request));
      decide(request);
    },
  });
  const events = await collect(stream);
  const error = await stream.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { events, asked, error };
}

/** The messages of a stream's `policy` notices. */
export const policyNotices = (events: readonly AgentEvent[]): string[] =>
  events.flatMap((e) => (e.type === "notice" && e.kind === "policy" ? [e.message ?? ""] : []));

/** The text of a stream's `text-delta` events, joined. */
export function streamedText(events: readonly AgentEvent[]): string {
  return events.map((e) => (e.type === "text-delta" ? e.text : "")).join("");
}

/** The pids from the stream's `process` spawn events. */
export function spawnedPids(events: readonly AgentEvent[]): number[] {
  return events.flatMap((event) => (event.type === "process" && event.kind === "spawn" && event.pid !== undefined ? [event.pid] : []));
}

/** True while a process with `pid` exists (it is not {@link processGone}). */
export function alive(pid: number): boolean {
  return !processGone(pid);
}

/** Pids of live processes whose environment carries `marker` (to find every process an agent started). */
export async function processesWith(marker: string): Promise<number[]> {
  const { readdir, readFile } = await import("node:fs/promises");
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = await readFile(`/proc/${entry}/environ`, "latin1");
      if (environ.includes(marker)) pids.push(Number(entry));
    } catch {
      // gone or not ours
    }
  }
  return pids;
}

/** The Claude Code ACP adapter (`@zed-industries/claude-code-acp`, pinned 0.16.2) installed as a dev dependency. */
export const CLAUDE_ACP_ENTRY = fileURLToPath(new URL("../node_modules/@zed-industries/claude-code-acp/dist/index.js", import.meta.url));
/**
 * The Codex ACP adapter's native binary (`@zed-industries/codex-acp`, pinned 0.16.0), next to the
 * package in the store: run directly, not through the package's Node launcher, which would keep
 * running as a second process and outlive a kill of the agent.
 */
export const CODEX_ACP_BINARY = join(
  realpathSync(fileURLToPath(new URL("../node_modules/@zed-industries/codex-acp", import.meta.url))),
  "..",
  `codex-acp-${process.platform}-${process.arch}`,
  "bin",
  "codex-acp",
);

/** `acp()` for Claude Code through its ACP adapter, in an isolated claude environment. */
export function claudeAcp(env: ClaudeTestEnv, extra: Partial<AcpConfig> = {}): AcpDriver {
  return acp({
    type: "claude-code-acp",
    displayName: "Claude Code (ACP adapter)",
    command: process.execPath,
    args: [CLAUDE_ACP_ENTRY],
    cwd: env.workDir,
    env: env.env,
    inheritEnv: false,
    mcpTransports: ["stdio", "http"],
    fork: true,
    // With the host's fs offered, 0.16.2 replaces Claude Code's Write/Edit/Read with its own
    // mcp__acp__* tools; these tests pin the adapter on Claude Code's own tools.
    hostCapabilities: false,
    ...extra,
  });
}

/** The Codex ACP adapter's Node launcher (`bin/codex-acp.js`), which runs the native binary as its child (spawnSync). */
export const CODEX_ACP_LAUNCHER = fileURLToPath(new URL("../node_modules/@zed-industries/codex-acp/bin/codex-acp.js", import.meta.url));

/** `acp()` for Codex through its ACP adapter, in an isolated codex environment. */
export function codexAcp(env: CodexTestEnv, extra: Partial<AcpConfig> = {}): AcpDriver {
  return acp({
    type: "codex-acp",
    displayName: "Codex (ACP adapter)",
    command: CODEX_ACP_BINARY,
    cwd: env.workDir,
    env: env.env,
    inheritEnv: false,
    mcpTransports: ["stdio", "http"],
    ...extra,
  });
}

/** A codex environment whose commands need approval (`approval_policy = "untrusted"`), as the ACP adapter reads it from config.toml. */
export async function codexAcpEnv(server: OpenAIServer): Promise<CodexTestEnv> {
  const env = await codexTestEnv({ server });
  await writeFile(env.configPath, `approval_policy = "untrusted"\n${await readFile(env.configPath, "utf8")}`);
  return env;
}

/** A scripted model server, an isolated environment and an Agent on a real ACP adapter. */
export interface AdapterHarness<S> {
  readonly server: S;
  readonly env: { readonly workDir: string; readonly home: string };
  readonly agent: Agent;
  close(): Promise<void>;
}

export async function claudeAcpHarness(rules: ScriptRule[] = [], options: AgentOptions = {}): Promise<AdapterHarness<AnthropicServer>> {
  const server = await startAnthropicServer({ rules });
  const env = await claudeTestEnv({ server });
  const agent = new Agent(claudeAcp(env), { threadStore: new MemoryThreadStore(), ...options });
  return { server, env, agent, close: closer(agent, server, env) };
}

export async function codexAcpHarness(
  rules: ResponsesScriptRule[] = [],
  options: AgentOptions = {},
): Promise<AdapterHarness<OpenAIServer>> {
  const server = await startOpenAIServer({ rules });
  const env = await codexAcpEnv(server);
  const agent = new Agent(codexAcp(env), { threadStore: new MemoryThreadStore(), ...options });
  return { server, env, agent, close: closer(agent, server, env) };
}

/** A scripted Anthropic server, an isolated claude environment and an Agent on a Claude ACP adapter. */
export interface ClaudeAdapterRun {
  readonly server: AnthropicServer;
  readonly env: ClaudeTestEnv;
  readonly agent: Agent;
}

/**
 * For a file of tests on a Claude ACP adapter: returns `start(rules, driverOf)`, which starts a
 * scripted Anthropic server with `rules`, an isolated claude environment and an Agent on
 * `driverOf(env)` (with `agentOptions`, e.g. a thread store), and registers their closing after each
 * test (agent, server, environment).
 */
export function claudeAdapterEachTest(): (
  rules: ScriptRule[],
  driverOf: (env: ClaudeTestEnv) => ConstructorParameters<typeof Agent>[0],
  agentOptions?: ConstructorParameters<typeof Agent>[1],
) => Promise<ClaudeAdapterRun> {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });
  return async (rules, driverOf, agentOptions) => {
    const server = await startAnthropicServer({ rules });
    let env: ClaudeTestEnv;
    try {
      env = await claudeTestEnv({ server });
    } catch (error) {
      await server.close();
      throw error;
    }
    const agent = new Agent(driverOf(env), agentOptions);
    close = closer(agent, server, env);
    return { server, env, agent };
  };
}

/** How many messages of a scripted request carry a tool result: the model's step in a scripted tool sequence. */
export function toolResultCount(view: RequestView): number {
  const { messages } = view.raw as { messages: { content: unknown }[] };
  return messages.filter((m) => Array.isArray(m.content) && (m.content as { type?: string }[]).some((c) => c.type === "tool_result"))
    .length;
}

function closer(agent: Agent, server: { close(): Promise<void> }, env: { cleanup(): Promise<void> }): () => Promise<void> {
  return async () => {
    await agent.close();
    await server.close();
    await env.cleanup();
  };
}

/**
 * Streams `prompt` and cancels it once the agent's session started; resolves with the verdict and
 * the spawned pids once the stream ended.
 */
export async function cancelOnceStarted(agent: Agent, prompt: string): Promise<{ error: unknown; pids: number[] }> {
  const stream = agent.stream(prompt);
  const events: AgentEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    if (event.type === "notice" && event.message === "session started") stream.cancel();
  }
  const error = await stream.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, pids: spawnedPids(events) };
}

/**
 * Streams `prompt` and SIGKILLs the agent's process (only it, not its group) once its session
 * started, as something outside the SDK would; resolves with the verdict once the stream ended.
 */
export async function killOnceStarted(agent: Agent, prompt: string): Promise<unknown> {
  const stream = agent.stream(prompt);
  let pid: number | undefined;
  for await (const event of stream) {
    if (event.type === "process" && event.kind === "spawn") pid = event.pid;
    if (event.type === "notice" && event.message === "session started") process.kill(pid!, "SIGKILL");
  }
  return stream.result().catch((e: unknown) => e);
}

/**
 * Cancels a slow turn once its session started and checks the verdict is the abort (an ordinary
 * error, not a `RunError`), from exactly one process, and that nothing is left running under `home`.
 */
export async function expectCancelLeavesNothing(agent: Agent, prompt: string, home: string): Promise<void> {
  const { error, pids } = await cancelOnceStarted(agent, prompt);
  expect((error as Error).name).toBe("AbortError");
  expect(error).not.toBeInstanceOf(RunError);
  expect(pids).toHaveLength(1);
  expect(alive(pids[0]!)).toBe(false);
  expect(await processesWith(home)).toEqual([]);
}

/** Runs three turns on one thread; resolves with the pids spawned for them. */
export async function threeTurns(agent: Agent, key = "chat"): Promise<number[]> {
  const thread = agent.thread(key);
  const pids: number[] = [];
  for (const prompt of ["first turn", "second turn", "third turn"]) {
    const stream = thread.stream(prompt);
    pids.push(...spawnedPids(await collect(stream)));
    await stream.result();
  }
  return pids;
}

/** A private home for an agent CLI: HOME, XDG dirs and TMPDIR inside it, proxies pointed at a closed port. */
export interface IsolatedHome {
  readonly home: string;
  readonly workDir: string;
  readonly env: Record<string, string>;
  cleanup(): Promise<void>;
}

/**
 * Makes an {@link IsolatedHome}. The proxies (`HTTP_PROXY`, `HTTPS_PROXY`, lower case too) point at
 * 127.0.0.1:9, where nothing listens, so a CLI's start-up calls to the internet fail at once;
 * `NO_PROXY` lets it reach the scripted server on 127.0.0.1.
 */
export async function isolatedHome(): Promise<IsolatedHome> {
  const { mkdtemp, mkdir, rm } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const home = realpathSync(await mkdtemp(join(tmpdir(), "adaptor-acp-")));
  const workDir = join(home, "work");
  for (const dir of [
    workDir,
    join(home, ".config"),
    join(home, ".local", "share"),
    join(home, ".cache"),
    join(home, ".local", "state"),
    join(home, "tmp"),
  ])
    await mkdir(dir, { recursive: true });
  const closed = "http://127.0.0.1:9";
  return {
    home,
    workDir,
    env: {
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local", "share"),
      XDG_CACHE_HOME: join(home, ".cache"),
      XDG_STATE_HOME: join(home, ".local", "state"),
      TMPDIR: join(home, "tmp"),
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      HTTP_PROXY: closed,
      HTTPS_PROXY: closed,
      http_proxy: closed,
      https_proxy: closed,
      NO_PROXY: "127.0.0.1,localhost",
      no_proxy: "127.0.0.1,localhost",
    },
    cleanup: () => rm(home, { recursive: true, force: true }),
  };
}

/**
 * The conformance kit's scripted turns against the testkit's Anthropic server (its directives):
 * `fixture.env.workDir` names the file of the tool turn; a rule answering `so-conformance` with
 * `{"answer":"forty-two"}` serves the structured turn.
 */
export function anthropicConformanceScripts<F extends DriverFixture & { readonly env: { readonly workDir: string } }>(): ScriptedTurns<F> {
  return {
    text: () => ({ request: { prompt: "hello conformance" }, expectText: "Fake reply." }),
    followUp: () => ({ request: { prompt: "follow up" }, expectText: "Fake reply." }),
    toolApproval: (f) => ({
      request: { prompt: `WRITE_FILE ${f.env.workDir}/conformance.txt` },
      toolRan: () => existsSync(`${f.env.workDir}/conformance.txt`),
    }),
    slow: () => ({ request: { prompt: "SLOW_MS 30000 slow conformance" } }),
    failing: () => ({ request: { prompt: "HTTP_ERROR 400" }, expectMessage: "Scripted HTTP_ERROR 400" }),
    structured: () => ({
      request: {
        prompt: "so-conformance",
        outputSchema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
      },
      expectValue: { answer: "forty-two" },
    }),
  };
}

/** A conformance fixture on the testkit's Anthropic server and an isolated claude environment. */
export interface AnthropicFixture extends DriverFixture {
  readonly server: AnthropicServer;
  readonly env: ClaudeTestEnv;
}

/** Makes {@link AnthropicFixture}s whose driver is `driverOf(env)`; the server answers `so-conformance` with the structured value. */
export function anthropicFixture(driverOf: (env: ClaudeTestEnv) => AcpDriver): () => Promise<AnthropicFixture> {
  return async () => {
    const server = await startAnthropicServer({
      rules: [{ when: whenUserSays("so-conformance"), reply: { text: '{"answer":"forty-two"}' } }],
    });
    const env = await claudeTestEnv({ server });
    return {
      driver: driverOf(env),
      server,
      env,
      cleanup: async () => {
        await server.close();
        await env.cleanup();
      },
    };
  };
}

/**
 * Sets `name` in this process's environment (what an agent inherits) to `value()` before each test
 * of the calling file and restores it after.
 */
export function hostEnvForEachTest(name: string, value: () => string): void {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env[name];
    process.env[name] = value();
  });
  afterEach(() => {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  });
}

/** Expects `agent` to refuse `prompt` before launch under `read_only` and under `ask`. */
export async function expectConfiningPoliciesRefused(agent: Agent, prompt: string): Promise<void> {
  const readOnly = await agent.run(prompt, { policy: { sandbox: "read_only" } }).catch((e: unknown) => e);
  expect(readOnly).toBeInstanceOf(PolicyCapabilityUnsupportedError);
  const ask = await agent
    .run(prompt, { policy: { approvals: { permission: "ask" } }, onApproval: (r) => r.deny("no") })
    .catch((e: unknown) => e);
  expect(ask).toBeInstanceOf(HumanDecisionModeUnsupportedError);
}
