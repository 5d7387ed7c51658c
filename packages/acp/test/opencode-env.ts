import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ChatCompletionsServer } from "@adaptor/testkit";
import type { OpencodeConfig } from "../src/index.js";
import type { IsolatedHome } from "./support.js";

// The opencode() config the OpenCode tests run: a private home and one scripted model.

const OPENCODE_BIN = fileURLToPath(new URL("../node_modules/opencode-ai/bin/opencode.exe", import.meta.url));

/**
 * The opencode() config that runs against `server`: a private home and one scripted
 * OpenAI-compatible model. OpenCode's database is created first (`opencode db path`): several
 * OpenCode processes starting together in a fresh data directory race on its migration (one exits
 * with "Failed query: CREATE TABLE `workspace`"), which the conformance kit's concurrent runs hit.
 */
export function opencodeTestConfig(home: IsolatedHome, server: ChatCompletionsServer): OpencodeConfig {
  // Bounded (a synchronous call no test timeout can stop), but generously: on a busy machine the
  // migration of a fresh database alone has taken over a minute.
  execFileSync(OPENCODE_BIN, ["db", "path"], { env: { ...home.env, OPENCODE_DISABLE_AUTOUPDATE: "1" }, stdio: "ignore", timeout: 240_000 });
  return {
    cwd: home.workDir,
    inheritEnv: false,
    env: home.env,
    opencodeConfig: {
      provider: {
        scripted: {
          npm: "@ai-sdk/openai-compatible",
          name: "Scripted",
          options: { baseURL: `${server.url}/v1`, apiKey: "sk-test" },
          models: { "test-model": { name: "Test model" } },
        },
      },
      model: "scripted/test-model",
      small_model: "scripted/test-model",
    },
  };
}
