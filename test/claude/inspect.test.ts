// agent.inspect() / driver.inspect() on the real claude binary: executable, version against the
// pin, credentials present (never their value), models and slash commands from the CLI's
// initialize answer, typed failed checks; no model call (the scripted server sees no request).
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { InvalidOptionError, findError, isError } from "@adaptor/errors";
import { NOT_PROBED, processGone } from "@adaptor/driver/kit";
import { Agent, ErrAgentClosed } from "adaptor";
import { FeatureUnsupportedError } from "@adaptor/driver";
import { runDriver } from "@adaptor/driver/testing";
import { CLAUDE_DESCRIPTOR, MIN_CLAUDE_VERSION, PINNED_CLAUDE_VERSION, claude } from "@adaptor/claude";

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
      models: { supported: true },
      commands: { supported: true },
      mcp: { supported: true, transports: CLAUDE_DESCRIPTOR.capabilities.mcp.transports },
      skills: { supported: true },
      failed: [],
    });
    expect(inspection.executable.path).toMatch(/^\//);
    expect(JSON.stringify(inspection)).not.toContain(SECRET);
    expect(server.requests).toHaveLength(0);
  });

  it("models and slash commands come from the CLI's initialize answer (the picker's aliases, the user's own command), with no model call and no process left", async () => {
    await mkdir(join(env.configDir, "commands"), { recursive: true });
    await writeFile(join(env.configDir, "commands", "probe-hello.md"), "---\ndescription: Say hello to the probe\n---\nSay hello.");
    const before = server.requests.length;
    const inspection = await claude({ cwd: env.workDir, env: env.env, inheritEnv: false }).inspect();
    expect(inspection.models.supported).toBe(true);
    if (!inspection.models.supported || !inspection.commands?.supported) throw new Error("unsupported");
    expect(inspection.models.models).toEqual(expect.arrayContaining(["default", "opus", "sonnet", "haiku"]));
    expect(inspection.models.defaultModel).toMatch(/^claude-/);
    expect(inspection.commands.commands).toContainEqual(
      expect.objectContaining({ name: "probe-hello", description: "Say hello to the probe (user)" }),
    );
    const configured = await claude({ cwd: env.workDir, env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" }).inspect();
    expect(configured.models).toMatchObject({ supported: true, defaultModel: "claude-sonnet-4-5" });
    expect(server.requests).toHaveLength(before);
    await rm(join(env.configDir, "commands"), { recursive: true, force: true });
  });

  it("an abort while the initialize probe waits rejects with its reason and leaves no probe process", async () => {
    const fake = join(dir, "silent-claude");
    const pidFile = join(dir, "silent-claude.pid");
    await writeFile(
      fake,
      `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "${PINNED_CLAUDE_VERSION} (Claude Code)"; exit 0; fi\n` +
        `if [ "$1" = "auth" ]; then echo '{"loggedIn":true,"authMethod":"api_key"}'; exit 0; fi\necho $$ > ${pidFile}\nexec sleep 300\n`,
    );
    await chmod(fake, 0o755);
    const controller = new AbortController();
    const reason = new Error("host gave up");
    const inspecting = claude({ command: fake, env: env.env, inheritEnv: false }).inspect({ signal: controller.signal });
    await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), { timeout: 30_000, interval: 50 });
    const pid = Number((await readFile(pidFile, "utf8")).trim());
    controller.abort(reason);
    await expect(inspecting).rejects.toBe(reason);
    await vi.waitFor(() => expect(processGone(pid)).toBe(true), { timeout: 10_000, interval: 50 });
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

  it("a version older than the driver supports is `version_unsupported` with the refusal a run gives, the later probes skipped", async () => {
    const fake = join(dir, "old-claude");
    await writeFile(fake, '#!/bin/sh\necho "2.0.1 (Claude Code)"\n');
    await chmod(fake, 0o755);
    const driver = claude({ command: fake, env: env.env, inheritEnv: false });
    const inspection = await driver.inspect();
    expect(inspection.version).toEqual({ found: "2.0.1", pinned: PINNED_CLAUDE_VERSION, minimum: MIN_CLAUDE_VERSION, matches: false });
    const refusal = findError((await runDriver(driver, { prompt: "hi" })).error, FeatureUnsupportedError);
    expect(inspection.failed).toEqual([{ check: "version", reason: "version_unsupported", message: refusal?.reason }]);
    expect(refusal?.reason).toContain(`claude 2.0.1 is older than ${MIN_CLAUDE_VERSION}`);
    expect(inspection.authentication).toEqual({ present: false, reason: NOT_PROBED });
    expect(inspection.models).toEqual({ supported: false, reason: NOT_PROBED });
  });

  it("a supported version other than the pinned one is `version_mismatch`, and the later probes are skipped", async () => {
    const fake = join(dir, "newer-claude");
    await writeFile(fake, '#!/bin/sh\necho "9.0.0 (Claude Code)"\n');
    await chmod(fake, 0o755);
    const inspection = await claude({ command: fake, env: env.env, inheritEnv: false }).inspect();
    expect(inspection.version).toEqual({ found: "9.0.0", pinned: PINNED_CLAUDE_VERSION, minimum: MIN_CLAUDE_VERSION, matches: false });
    expect(inspection.failed.map((f) => [f.check, f.reason])).toEqual([["version", "version_mismatch"]]);
    expect(inspection.authentication).toEqual({ present: false, reason: NOT_PROBED });
    expect(inspection.models).toEqual({ supported: false, reason: NOT_PROBED });
  });

  it("the pinned version whose auth probe prints no JSON is `probe_failed`, with what it printed on stderr", async () => {
    const fake = join(dir, "odd-claude");
    await writeFile(
      fake,
      `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "${PINNED_CLAUDE_VERSION} (Claude Code)"; exit 0; fi\necho "auth store locked" >&2\n`,
    );
    await chmod(fake, 0o755);
    const inspection = await claude({ command: fake, env: env.env, inheritEnv: false }).inspect();
    expect(inspection.failed.map((f) => [f.check, f.reason])).toEqual([
      ["authentication", "probe_failed"],
      ["models", "probe_failed"],
    ]);
    expect(inspection.failed[0]!.message).toBe("claude auth status printed no JSON (exit 0): auth store locked");
    expect(inspection.models).toMatchObject({ supported: false, reason: expect.stringContaining("stdout ended before the answer") });
  });

  it("refuses bad inspect options with InvalidOptionError naming the field, before any probe", async () => {
    const driver = claude({ cwd: env.workDir, env: env.env, inheritEnv: false });
    await using agent = new Agent(driver);
    for (const inspect of [(o: unknown) => agent.inspect(o as never), (o: unknown) => driver.inspect(o as never)]) {
      const typo = findError(await inspect({ sgnal: AbortSignal.abort() }).catch((e: unknown) => e), InvalidOptionError);
      expect(typo).toMatchObject({ subject: "inspect options", field: "sgnal", suggestion: "signal" });
      expect(typo?.message).toContain('did you mean "signal"?');
      expect(findError(await inspect(5).catch((e: unknown) => e), InvalidOptionError)?.message).toContain("must be an object");
      expect(findError(await inspect({ signal: {} }).catch((e: unknown) => e), InvalidOptionError)).toMatchObject({ field: "signal" });
    }
    expect(server.requests).toHaveLength(0);
  });

  it("the docs name the MCP transports the driver declares, as inspect() reports them", async () => {
    const declared = [...CLAUDE_DESCRIPTOR.capabilities.mcp.transports].sort();
    const observability = await readFile(new URL("../../docs/observability.md", import.meta.url), "utf8");
    const row = /^\| MCP \| from the descriptor \(([^)]*)\)/m.exec(observability)?.[1] ?? "";
    expect(
      row
        .split(",")
        .map((t) => t.trim())
        .sort(),
    ).toEqual(declared);
    const readme = await readFile(new URL("../../packages/claude/README.md", import.meta.url), "utf8");
    const cell = /^\| MCP \| ([^|]*)\|/m.exec(readme)?.[1] ?? "";
    expect([...cell.matchAll(/`([a-z]+)`/g)].map((m) => m[1]).sort()).toEqual(declared);
  });

  it("a closed agent rejects inspect() with ErrAgentClosed", async () => {
    const agent = new Agent(claude({ cwd: env.workDir, env: env.env, inheritEnv: false }));
    await agent.close();
    expect(isError(await agent.inspect().catch((e: unknown) => e), ErrAgentClosed)).toBe(true);
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
