// driver.inspect() on the real codex binary: version against the pin, credentials present by name
// (the testkit's provider key), the models `codex app-server` lists, typed failed checks; no turn,
// so no model call (the scripted server sees no request).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "adaptor";
import { CODEX_DESCRIPTOR, PINNED_CODEX_VERSION, codex } from "@adaptor/codex";
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
});
