import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ChatCompletionsServer } from "@adaptor/testkit";

/** The real `codebuddy` CLI (2.117.0), shipped inside `@tencent-ai/agent-sdk` (pinned dev dependency). */
export const CODEBUDDY_BIN = join(
  dirname(createRequire(import.meta.url).resolve("@tencent-ai/agent-sdk")),
  "..",
  "cli",
  "bin",
  "codebuddy",
);

/** The model id the test home's `models.json` defines, served by the scripted chat-completions server. */
export const SCRIPTED_MODEL = "scripted";

/** A private home for the CLI: `models.json` points model {@link SCRIPTED_MODEL} at the scripted server. */
export interface CodeBuddyTestEnv extends AsyncDisposable {
  readonly home: string;
  readonly workDir: string;
  /** The CLI's environment: private HOME and TMPDIR, PATH. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/** Makes a private CLI home whose only model is the scripted chat-completions server. */
export function codebuddyTestEnv(server: ChatCompletionsServer): CodeBuddyTestEnv {
  const home = mkdtempSync(join(tmpdir(), "adaptor-codebuddy-"));
  const workDir = join(home, "work");
  mkdirSync(join(home, ".codebuddy"), { recursive: true });
  mkdirSync(join(home, "tmp"));
  mkdirSync(workDir);
  const model = {
    id: SCRIPTED_MODEL,
    name: "Scripted",
    vendor: "OpenAI",
    apiKey: "sk-test",
    maxInputTokens: 100000,
    maxOutputTokens: 4096,
    url: `${server.url}/v1/chat/completions`,
    supportsToolCall: true,
    supportsImages: true,
  };
  writeFileSync(join(home, ".codebuddy", "models.json"), JSON.stringify({ models: [model], availableModels: [SCRIPTED_MODEL] }));
  const close = (): Promise<void> => {
    rmSync(home, { recursive: true, force: true });
    return Promise.resolve();
  };
  return {
    home,
    workDir,
    env: { HOME: home, TMPDIR: join(home, "tmp"), PATH: process.env.PATH ?? "/usr/bin:/bin" },
    close,
    [Symbol.asyncDispose]: close,
  };
}
