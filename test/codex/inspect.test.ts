// driver.inspect() on the real codex binary: version against the pin, credentials present by name
// (the testkit's provider key), the models `codex app-server` lists, typed failed checks; no turn,
// so no model call (the scripted server sees no request).
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidOptionError, findError } from "@adaptor/errors";
import { NOT_PROBED } from "@adaptor/driver/kit";
import { Agent } from "adaptor";
import { FeatureUnsupportedError } from "@adaptor/driver";
import { runDriver } from "@adaptor/driver/testing";
import { CODEX_DESCRIPTOR, MIN_CODEX_VERSION, PINNED_CODEX_VERSION, codex } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";

let h: CodexHarness;
beforeAll(async () => {
  h = await codexHarness();
});
afterAll(async () => {
  await h?.close();
});

describe("codex inspect", () => {
  it("a configured host: version matches, the provider key is present by name only, models are listed, no model call", async () => {
    await using agent = new Agent(h.driver);
    const inspection = await agent.inspect();
    expect(inspection).toMatchObject({
      driver: "codex",
      ok: true,
      executable: { found: true },
      version: { found: PINNED_CODEX_VERSION, pinned: PINNED_CODEX_VERSION, matches: true },
      authentication: { present: true, method: "api_key" },
      mcp: { supported: CODEX_DESCRIPTOR.capabilities.mcp.transports.length > 0, transports: CODEX_DESCRIPTOR.capabilities.mcp.transports },
      skills: { supported: false },
      failed: [],
    });
    const key = inspection.authentication.source ?? "";
    expect(h.env.env[key]).toBeDefined();
    expect(JSON.stringify(inspection)).not.toContain(h.env.env[key]);
    if (!inspection.models.supported) throw new Error("codex lists its models");
    expect(inspection.models.models.length).toBeGreaterThan(0);
    expect(inspection.models.models.every((m) => typeof m === "string" && m.length > 0)).toBe(true);
    expect(h.server.requests).toHaveLength(0);
  });

  it("without the provider's key in the environment the failed check is `unauthenticated`", async () => {
    const first = await h.driver.inspect();
    const key = first.authentication.source ?? "";
    const { [key]: _removed, ...withoutKey } = h.env.env;
    const inspection = await codex({ cwd: h.env.workDir, env: withoutKey, inheritEnv: false }).inspect();
    expect(inspection.authentication.present).toBe(false);
    expect(inspection.failed.map((f) => [f.check, f.reason])).toEqual([["authentication", "unauthenticated"]]);
  });

  it("a missing executable is `executable_not_found`", async () => {
    const inspection = await codex({ command: "/nonexistent/codex", env: h.env.env, inheritEnv: false }).inspect();
    expect(inspection.failed.map((f) => [f.check, f.reason])).toEqual([["executable", "executable_not_found"]]);
  });

  it("a CODEX_HOME that does not exist: the failed check carries the CLI's own stderr", async () => {
    const missing = join(h.env.workDir, "nope");
    const inspection = await codex({ cwd: h.env.workDir, env: { ...h.env.env, CODEX_HOME: missing }, inheritEnv: false }).inspect();
    expect(inspection.ok).toBe(false);
    const messages = inspection.failed.map((f) => f.message).join("\n");
    expect(messages).toContain(`CODEX_HOME points to "${missing}", but that path does not exist`);
    expect(messages).not.toContain("\u001b[");
    expect(h.server.requests).toHaveLength(0);
  });

  it("a version older than the driver supports is `version_unsupported` with the refusal a run gives, the app-server probe skipped", async () => {
    const fake = join(h.env.workDir, "old-codex");
    await writeFile(fake, '#!/bin/sh\necho "codex-cli 0.1.0"\n');
    await chmod(fake, 0o755);
    const driver = codex({ command: fake, env: h.env.env, inheritEnv: false });
    const inspection = await driver.inspect();
    expect(inspection.version).toEqual({ found: "0.1.0", pinned: PINNED_CODEX_VERSION, minimum: MIN_CODEX_VERSION, matches: false });
    const refusal = findError((await runDriver(driver, { prompt: "hi" })).error, FeatureUnsupportedError);
    expect(inspection.failed).toEqual([{ check: "version", reason: "version_unsupported", message: refusal?.reason }]);
    expect(refusal?.reason).toContain(`codex 0.1.0 is older than ${MIN_CODEX_VERSION}`);
    expect(inspection.authentication).toEqual({ present: false, reason: NOT_PROBED });
    expect(inspection.models).toEqual({ supported: false, reason: NOT_PROBED });
  });

  it("a supported version other than the pinned one is `version_mismatch`, and the app-server probe is skipped", async () => {
    const fake = join(h.env.workDir, "newer-codex");
    await writeFile(fake, '#!/bin/sh\necho "codex-cli 9.0.0"\n');
    await chmod(fake, 0o755);
    const inspection = await codex({ command: fake, env: h.env.env, inheritEnv: false }).inspect();
    expect(inspection.version).toEqual({ found: "9.0.0", pinned: PINNED_CODEX_VERSION, minimum: MIN_CODEX_VERSION, matches: false });
    expect(inspection.failed.map((f) => [f.check, f.reason])).toEqual([["version", "version_mismatch"]]);
    expect(inspection.authentication).toEqual({ present: false, reason: NOT_PROBED });
    expect(inspection.models).toEqual({ supported: false, reason: NOT_PROBED });
  });

  it("refuses bad inspect options with InvalidOptionError naming the field, before any probe", async () => {
    await using agent = new Agent(h.driver);
    for (const inspect of [(o: unknown) => agent.inspect(o as never), (o: unknown) => h.driver.inspect(o as never)]) {
      const typo = findError(await inspect({ sgnal: AbortSignal.abort() }).catch((e: unknown) => e), InvalidOptionError);
      expect(typo).toMatchObject({ subject: "inspect options", field: "sgnal", suggestion: "signal" });
      expect(findError(await inspect(5).catch((e: unknown) => e), InvalidOptionError)?.message).toContain("must be an object");
      expect(findError(await inspect({ signal: {} }).catch((e: unknown) => e), InvalidOptionError)).toMatchObject({ field: "signal" });
    }
  });
});
