import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { codexTestEnv, startOpenAIServer, type CodexTestEnv, type OpenAIServer, type ResponsesScriptRule } from "@adaptor/testkit";
import { codex, type CodexConfig, type CodexDriver } from "../src/index.js";

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
  readonly config?: CodexConfig;
  /** Put the temp root outside /tmp (workspace-write lets codex write anywhere under /tmp and $TMPDIR). */
  readonly outsideTmp?: boolean;
}

const here = dirname(fileURLToPath(import.meta.url));
/** A parent dir for temp roots that is not under /tmp (git-ignored node_modules cache of this package). */
export const NON_TMP_PARENT = join(here, "..", "node_modules", ".cache", "adaptor-codex-test");

export async function codexHarness(options: CodexHarnessOptions = {}): Promise<CodexHarness> {
  const server = await startOpenAIServer({ rules: options.rules ?? [] });
  if (options.outsideTmp) await mkdir(NON_TMP_PARENT, { recursive: true });
  const env = await codexTestEnv({ server, ...(options.outsideTmp ? { parentDir: NON_TMP_PARENT } : {}) });
  const driver = codex({ cwd: env.workDir, env: env.env, inheritEnv: false, killGraceMs: 1000, ...options.config });
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

/** True while a process with `pid` exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
