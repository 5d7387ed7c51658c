import { existsSync, statSync } from "node:fs";
import { afterEach, describe, expect, test } from "vitest";
import { claudeTestEnv, type ClaudeTestEnv } from "./claude-test-env.js";

const made: ClaudeTestEnv[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((env) => env.cleanup()));
});

describe("claudeTestEnv", () => {
  test("builds the full child env from scratch, with isolated dirs", async () => {
    const saved = { ...process.env };
    process.env.ANTHROPIC_AUTH_TOKEN = "leak-me";
    process.env.CLAUDE_CODE_USE_BEDROCK = "1";
    try {
      const env = await claudeTestEnv({ server: { url: "http://127.0.0.1:1234" } });
      made.push(env);
      expect(env.env).toMatchObject({
        PATH: process.env.PATH,
        HOME: env.home,
        CLAUDE_CONFIG_DIR: env.configDir,
        TMPDIR: env.tmpDir,
        ANTHROPIC_BASE_URL: "http://127.0.0.1:1234",
        ANTHROPIC_API_KEY: "dummy",
        DISABLE_TELEMETRY: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        CLAUDE_CODE_MAX_RETRIES: "0",
      });
      expect(env.env.IS_SANDBOX).toBe(process.getuid?.() === 0 ? "1" : undefined);
      expect(Object.keys(env.env)).not.toContain("ANTHROPIC_AUTH_TOKEN");
      expect(Object.keys(env.env)).not.toContain("CLAUDE_CODE_USE_BEDROCK");
      expect(env.configDir).toBe(`${env.home}/.claude`);
      for (const dir of [env.home, env.configDir, env.tmpDir, env.workDir]) {
        expect(dir.startsWith(`${env.root}/`)).toBe(true);
        expect(statSync(dir).isDirectory()).toBe(true);
      }
    } finally {
      process.env = saved;
    }
  });

  test("baseUrl wins over server; extra env overrides defaults", async () => {
    const env = await claudeTestEnv({
      baseUrl: "http://127.0.0.1:1",
      server: { url: "http://127.0.0.1:2" },
      env: { CLAUDE_CODE_MAX_RETRIES: "2", FOO: "bar" },
    });
    made.push(env);
    expect(env.env).toMatchObject({ ANTHROPIC_BASE_URL: "http://127.0.0.1:1", CLAUDE_CODE_MAX_RETRIES: "2", FOO: "bar" });
  });

  test("rejects with TypeError without a base URL", async () => {
    await expect(claudeTestEnv({})).rejects.toBeInstanceOf(TypeError);
  });

  test("cleanup removes the whole root and is idempotent", async () => {
    const env = await claudeTestEnv({ baseUrl: "http://127.0.0.1:1" });
    await Promise.all([env.cleanup(), env.cleanup()]);
    await env[Symbol.asyncDispose]();
    expect(existsSync(env.root)).toBe(false);
  });
});
