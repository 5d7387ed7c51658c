import { existsSync, readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { codexConfigToml, codexTestEnv } from "./codex-test-env.js";

describe("codexTestEnv", () => {
  test("makes an isolated CODEX_HOME with the fake provider, HOME and TMPDIR, and removes it all", async () => {
    const env = await codexTestEnv({ baseUrl: "http://127.0.0.1:1234/v1", extraToml: "[tui]\nnotifications = false" });
    const toml = readFileSync(env.configPath, "utf8");
    expect(toml).toContain('base_url = "http://127.0.0.1:1234/v1"');
    expect(toml).toContain('model = "gpt-5.5"');
    expect(toml).toMatch(/request_max_retries = 0\nstream_max_retries = 0/);
    expect(toml).toContain("[features]\nplugins = false\nremote_plugin = false");
    expect(toml.trimEnd().endsWith("[tui]\nnotifications = false")).toBe(true);
    expect(env.env).toEqual({
      PATH: expect.any(String),
      HOME: env.home,
      CODEX_HOME: env.codexHome,
      TMPDIR: env.tmpDir,
      FAKE_OPENAI_KEY: "dummy",
      RUST_LOG: "warn",
    });
    expect(existsSync(env.workDir)).toBe(true);
    await Promise.all([env.cleanup(), env.cleanup()]);
    expect(existsSync(env.root)).toBe(false);
  });

  test("provider openai points codex's built-in provider at the base URL, with CODEX_API_KEY", async () => {
    const toml = codexConfigToml("http://127.0.0.1:1234/v1", "gpt-5.5", "openai");
    expect(toml).toContain('openai_base_url = "http://127.0.0.1:1234/v1"');
    expect(toml).not.toContain("model_provider");
    const env = await codexTestEnv({ baseUrl: "http://127.0.0.1:1234/v1", provider: "openai" });
    expect(readFileSync(env.configPath, "utf8")).toBe(toml);
    expect(env.env.CODEX_API_KEY).toBe("dummy");
    await env.cleanup();
  });

  test("requires a base URL", async () => {
    await expect(codexTestEnv({})).rejects.toThrow(TypeError);
    expect(codexConfigToml("http://x/v1", "gpt-6")).toContain('model = "gpt-6"');
  });
});
