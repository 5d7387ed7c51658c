import { mkdir } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  codexTestEnv,
  startOpenAIServer,
  whenPromptSays,
  type CodexTestEnv,
  type OpenAIServer,
  type ResponsesScriptRule,
} from "@adaptor/testkit";
import type { FakeCliStep } from "@adaptor/testkit/fake-cli";
import { codex, type CodexConfig, type CodexDriver } from "../src/index.js";
import { processGone } from "@adaptor/driver/kit";

/** A fake CLI step writing `value` as one JSON line on stdout. */
export const fakeLine = (value: unknown): FakeCliStep => ({ write: `${JSON.stringify(value)}\n` });

/**
 * The fake CLI playing codex app-server up to a running turn: it answers `initialize`,
 * `thread/start` (thread `t-fake`) and `turn/start` (turn `u-fake`), each once it was read.
 */
export const FAKE_APP_SERVER_HANDSHAKE: readonly FakeCliStep[] = [
  { awaitStdinLine: true }, // initialize
  fakeLine({ id: 1, result: { userAgent: "adaptor/0.171.0 (fake)", codexHome: "/x", platformFamily: "unix", platformOs: "linux" } }),
  { awaitStdinLine: true }, // initialized
  { awaitStdinLine: true }, // thread/start
  fakeLine({ id: 2, result: { thread: { id: "t-fake" }, model: "fake-model", modelProvider: "fake" } }),
  { awaitStdinLine: true }, // turn/start
  fakeLine({ id: 3, result: { turn: { id: "u-fake", status: "inProgress", items: [], error: null } } }),
];

/** A scripted OpenAI server, an isolated codex environment and a driver on the real binary. */
export interface CodexHarness {
  readonly server: OpenAIServer;
  readonly env: CodexTestEnv;
  readonly driver: CodexDriver;
  close(): Promise<void>;
}

/** Options of {@link codexHarness}. */
export interface CodexHarnessOptions {
  readonly rules?: ResponsesScriptRule[];
  /** The driver's config, or a function of the environment giving it (for paths inside it). */
  readonly config?: CodexConfig | ((env: CodexTestEnv) => CodexConfig);
  /** Put the temp root outside /tmp (workspace-write lets codex write anywhere under /tmp and $TMPDIR). */
  readonly outsideTmp?: boolean;
}

/** A parent dir for temp roots that is not under /tmp (git-ignored node_modules cache of this package). */
export const NON_TMP_PARENT = nonTmpParent();

/**
 * A folder outside /tmp and $TMPDIR, which codex's workspace-write sandbox leaves writable: the
 * home cache, else /var/tmp. (Not the repository: CI may clone it under /tmp.)
 */
function nonTmpParent(): string {
  const tmpRoots = ["/tmp", process.env.TMPDIR ?? "/tmp", tmpdir()].map((dir) => resolve(dir));
  const under = (dir: string): boolean => tmpRoots.some((root) => dir === root || dir.startsWith(`${root}/`));
  const candidates = [join(homedir(), ".cache"), "/var/tmp"].map((dir) => resolve(dir));
  const parent = candidates.find((dir) => !under(dir)) ?? candidates[1]!;
  return join(parent, "adaptor-codex-test");
}

/**
 * A model rule: the command after `ESCALATE_CMD` (to the end of the line) is run with
 * `exec_command` `{ cmd, sandbox_permissions: "require_escalated" }` (no justification). codex
 * 0.171.0 asks the host about it with a request that looks like any other command's, and an
 * approval runs it outside the sandbox; under approval policy `never` codex rejects it.
 */
export const ESCALATE_RULE: ResponsesScriptRule = {
  name: "escalate",
  when: whenPromptSays("ESCALATE_CMD"),
  reply: (view) => ({
    functionCall: {
      name: "exec_command",
      arguments: { cmd: /ESCALATE_CMD[ \t]+([^\n]+)/.exec(view.lastUserText)?.[1]?.trim() ?? "", sandbox_permissions: "require_escalated" },
    },
  }),
};

export async function codexHarness(options: CodexHarnessOptions = {}): Promise<CodexHarness> {
  const server = await startOpenAIServer({ rules: options.rules ?? [] });
  if (options.outsideTmp) await mkdir(NON_TMP_PARENT, { recursive: true });
  const env = await codexTestEnv({ server, ...(options.outsideTmp ? { parentDir: NON_TMP_PARENT } : {}) });
  const config = typeof options.config === "function" ? options.config(env) : options.config;
  const driver = codex({ cwd: env.workDir, env: env.env, inheritEnv: false, killGraceMs: 1000, ...config });
  return {
    server,
    env,
    driver,
    async close() {
      await driver.close();
      await server.close();
      await env.cleanup();
    },
  };
}

/** True while a process with `pid` exists (it is not {@link processGone}). */
export function alive(pid: number): boolean {
  return !processGone(pid);
}
