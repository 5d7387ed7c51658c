import { existsSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { ErrInvalidDriverConfig, ErrPolicyCapabilityUnsupported, type RunPolicy } from "@adaptor/driver";
import { isError } from "@adaptor/errors";
import { codexHarness, type CodexHarness } from "./support.js";

// What may not widen a confining sandbox on the real binary: codex's hidden `--yolo`, flags that add
// writable roots or trust, and writable roots in codex's own config.toml.

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const WRITE_BOTH = "SHELL_CMD echo out > ../outside.txt; echo in > in.txt";
const workspaceWrite: RunPolicy = { sandbox: "workspace_write" };

function sandboxDetail(run: Awaited<ReturnType<typeof runDriver>>): string | undefined {
  return run.response?.enforcement?.find((entry) => entry.field === "sandbox")?.detail;
}

describe("extraArgs that would widen the sandbox (exec transport)", () => {
  it("--yolo (codex's alias of --dangerously-bypass-approvals-and-sandbox) is refused before launch; nothing is written", async () => {
    h = await codexHarness({ config: { transport: "exec", extraArgs: ["--yolo"] }, outsideTmp: true });
    const run = await runDriver(h.driver, { prompt: WRITE_BOTH, policy: { sandbox: "read_only" } });
    expect(isError(run.error, ErrInvalidDriverConfig)).toBe(true);
    expect(String(run.error)).toContain('"--yolo"');
    expect(h.server.responses()).toHaveLength(0);
    expect(existsSync(join(h.env.root, "outside.txt"))).toBe(false);
  });

  it.each([[["--add-dir", "DIR"]], [["--add-dir=DIR"]], [["--trust"]], [["--dangerously-bypass-hook-trust"]]])(
    "%j is refused under workspace_write before launch; nothing is written",
    async (args) => {
      h = await codexHarness({
        config: (env) => ({ transport: "exec", extraArgs: args.map((arg) => arg.replace("DIR", env.root)) }),
        outsideTmp: true,
      });
      const run = await runDriver(h.driver, { prompt: WRITE_BOTH, policy: workspaceWrite });
      expect(isError(run.error, ErrPolicyCapabilityUnsupported)).toBe(true);
      expect(String(run.error)).toContain(args[0]!.split("=")[0]);
      expect(h.server.responses()).toHaveLength(0);
      expect(existsSync(join(h.env.root, "outside.txt"))).toBe(false);
    },
  );
});

describe.each(["exec", "app-server"] as const)("writable roots of workspace_write (%s transport)", (transport) => {
  it("a writable_roots line in CODEX_HOME's config.toml does not widen workspace_write; the report says the roots are pinned", async () => {
    h = await codexHarness({ config: { transport }, outsideTmp: true });
    await appendFile(h.env.configPath, `\n[sandbox_workspace_write]\nwritable_roots = [${JSON.stringify(h.env.root)}]\n`);
    const run = await runDriver(h.driver, { prompt: WRITE_BOTH, policy: workspaceWrite });
    expect(run.error).toBeUndefined();
    expect(existsSync(join(h.env.workDir, "in.txt"))).toBe(true);
    expect(existsSync(join(h.env.root, "outside.txt"))).toBe(false);
    expect(sandboxDetail(run)).toContain("sandbox_workspace_write.writable_roots = []");
  });

  it("the host's own configOverrides writable_roots widen it, and the report lists them", async () => {
    h = await codexHarness({
      config: (env) => ({ transport, configOverrides: { "sandbox_workspace_write.writable_roots": [env.root] } }),
      outsideTmp: true,
    });
    const root = h.env.root;
    const run = await runDriver(h.driver, { prompt: WRITE_BOTH, policy: workspaceWrite });
    expect(run.error).toBeUndefined();
    expect(existsSync(join(root, "outside.txt"))).toBe(true);
    expect(sandboxDetail(run)).toContain(JSON.stringify([root]));
  });
});
