// agent.inspect() / driver.inspect() on the real claude binary: executable, version against the
// pin, credentials present (never their value), an honest "unsupported" for models, typed failed
// checks; no model call (the scripted server sees no request).
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { CLAUDE_DESCRIPTOR, PINNED_CLAUDE_VERSION, claude } from "@adaptor/claude";

const SECRET = "sk-ant-inspect-secret-7f3a";
let server: AnthropicServer;
let env: ClaudeTestEnv;
let dir: string;

beforeAll(async () => {
  server = await startAnthropicServer({ rules: [] });
  env = await claudeTestEnv({ server, env: { ANTHROPIC_API_KEY: SECRET } });
  dir = await mkdtemp(join(tmpdir(), "adaptor-claude-inspect-"));
});
afterAll(async () => {
  await server?.close();
  await env?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe("claude inspect", () => {
  it("a configured host: pinned binary found, version matches, API key present by name only, no model call", async () => {
    await using agent = new Agent(claude({ cwd: env.workDir, env: env.env, inheritEnv: false }));
    const inspection = await agent.inspect();
    expect(inspection).toMatchObject({
      driver: "claude",
      ok: true,
      executable: { found: true },
      version: { found: PINNED_CLAUDE_VERSION, pinned: PINNED_CLAUDE_VERSION, matches: true },
      authentication: { present: true, method: "api_key", source: "ANTHROPIC_API_KEY" },
      models: { supported: false },
      mcp: { supported: true, transports: CLAUDE_DESCRIPTOR.capabilities.mcp.transports },
      skills: { supported: true },
      failed: [],
    });
    expect(inspection.executable.path).toMatch(/^\//);
    expect(JSON.stringify(inspection)).not.toContain(SECRET);
    expect(server.requests).toHaveLength(0);
  });

  it("no credentials: authentication.present is false and the failed check is `unauthenticated`", async () => {
    const { ANTHROPIC_API_KEY: _key, ...withoutKey } = env.env;
    const inspection = await claude({ cwd: env.workDir, env: withoutKey, inheritEnv: false }).inspect();
    expect(inspection.authentication.present).toBe(false);
    expect(inspection.failed.map((f) => [f.check, f.reason])).toEqual([["authentication", "unauthenticated"]]);
    expect(inspection.ok).toBe(false);
  });

  it("a missing executable is `executable_not_found`, and nothing else is probed", async () => {
    const inspection = await claude({ command: join(dir, "no-such-claude"), env: env.env, inheritEnv: false }).inspect();
    expect(inspection.executable).toEqual({ command: join(dir, "no-such-claude"), found: false });
    expect(inspection.failed.map((f) => [f.check, f.reason])).toEqual([["executable", "executable_not_found"]]);
    expect(inspection.models).toMatchObject({ supported: false });
  });

  it("another version is `version_mismatch`; a CLI whose auth probe prints no JSON is `probe_failed`", async () => {
    const fake = join(dir, "old-claude");
    await writeFile(fake, '#!/bin/sh\necho "2.0.1 (Claude Code)"\n');
    await chmod(fake, 0o755);
    const inspection = await claude({ command: fake, env: env.env, inheritEnv: false }).inspect();
    expect(inspection.version).toEqual({ found: "2.0.1", pinned: PINNED_CLAUDE_VERSION, matches: false });
    expect(inspection.failed.map((f) => [f.check, f.reason])).toEqual([
      ["version", "version_mismatch"],
      ["authentication", "probe_failed"],
    ]);
  });

  it("a refused configuration is `invalid_config`", async () => {
    const inspection = await claude({ extraArgs: ["--output-format", "text"] }).inspect();
    expect(inspection.failed.map((f) => [f.check, f.reason])).toEqual([["config", "invalid_config"]]);
  });

  it("an aborted signal rejects with its reason", async () => {
    const reason = new Error("host gave up");
    await expect(claude({ env: env.env, inheritEnv: false }).inspect({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });
});
