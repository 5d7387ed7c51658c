import { existsSync } from "node:fs";
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import type { RunPolicy } from "@adaptor/driver";
import { whenPromptSays, type ResponsesScriptRule } from "@adaptor/testkit";
import { codexHarness, ESCALATE_RULE, type CodexHarness } from "./support.js";

// What else codex 0.171.0 reads that could undo a confining sandbox, on the real binary, checked on
// the file system: a `--profile` config layer, the `profile` key, and features that add permissions.
// None of them does: `-s` / `thread/start` `sandbox`, `approval_policy = "never"` and the pinned
// writable roots win, or codex refuses to start. A codex upgrade that changes this fails here.

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const WRITE_BOTH = "SHELL_CMD echo out > ../outside.txt; echo in > in.txt";
const outsideWritten = (harness: CodexHarness): boolean => existsSync(join(harness.env.root, "outside.txt"));
const insideWritten = (harness: CodexHarness): boolean => existsSync(join(harness.env.workDir, "in.txt"));

/** A config layer that would undo the sandbox if it won: full access, codex's asking policy, the temp root writable, network on. */
function wideLayer(root: string): string {
  return [
    'sandbox_mode = "danger-full-access"',
    'approval_policy = "on-request"',
    "[sandbox_workspace_write]",
    `writable_roots = [${JSON.stringify(root)}]`,
    "network_access = true",
    "",
  ].join("\n");
}

function sandboxDetail(run: Awaited<ReturnType<typeof runDriver>>): string | undefined {
  return run.response?.enforcement?.find((entry) => entry.field === "sandbox")?.detail;
}

describe("--profile <name> (exec: $CODEX_HOME/<name>.config.toml layered on config.toml)", () => {
  async function withProfile(): Promise<CodexHarness> {
    const harness = await codexHarness({
      rules: [ESCALATE_RULE],
      config: { transport: "exec", extraArgs: ["--profile", "wide"] },
      outsideTmp: true,
    });
    await writeFile(join(harness.env.codexHome, "wide.config.toml"), wideLayer(harness.env.root));
    return harness;
  }

  it("the layer is loaded: without a policy its danger-full-access lets a command write outside the working directory", async () => {
    h = await withProfile();
    const run = await runDriver(h.driver, { prompt: WRITE_BOTH });
    expect(run.response?.failure).toBeUndefined();
    expect(outsideWritten(h)).toBe(true);
  });

  it("workspace_write: -s and the pinned writable roots win over the layer; inside is written, outside is not", async () => {
    h = await withProfile();
    const run = await runDriver(h.driver, { prompt: WRITE_BOTH, policy: { sandbox: "workspace_write" } });
    expect(run.response?.failure).toBeUndefined();
    expect(insideWritten(h)).toBe(true);
    expect(outsideWritten(h)).toBe(false);
    expect(sandboxDetail(run)).toBe("-s workspace-write; sandbox_workspace_write.writable_roots = []");
  });

  it.each<RunPolicy["sandbox"]>(["workspace_write", "read_only"])(
    "%s: the driver's approval_policy never wins over the layer's on-request; an escalated command is rejected, nothing outside",
    async (sandbox) => {
      h = await withProfile();
      const run = await runDriver(h.driver, { prompt: "ESCALATE_CMD echo out > ../outside.txt", policy: { sandbox } });
      expect(run.response?.text).toContain("approval policy is Never");
      expect(outsideWritten(h)).toBe(false);
    },
  );
});

describe.each(["exec", "app-server"] as const)("the profile key and --profile refused by codex itself (%s transport)", (transport) => {
  it("a profile line in config.toml: codex 0.171.0 refuses to start (legacy profile); the run fails, nothing is written", async () => {
    h = await codexHarness({ config: { transport }, outsideTmp: true });
    await writeFile(join(h.env.codexHome, "wide.config.toml"), wideLayer(h.env.root));
    const base = await readFile(h.env.configPath, "utf8");
    await writeFile(h.env.configPath, `profile = "wide"\n${base}`);
    const run = await runDriver(h.driver, { prompt: WRITE_BOTH, policy: { sandbox: "workspace_write" } });
    expect(String(run.response?.failure?.message ?? run.error)).toContain('legacy `profile = "wide"` config is no longer supported');
    expect(h.server.responses()).toHaveLength(0);
    expect(insideWritten(h) || outsideWritten(h)).toBe(false);
  });

  it("-c profile=<name> (also with -c profiles.<name>.sandbox_mode): codex refuses to start; the run fails, nothing is written", async () => {
    h = await codexHarness({
      config: { transport, extraArgs: ["-c", 'profiles.wide.sandbox_mode="danger-full-access"', "-c", "profile=wide"] },
      outsideTmp: true,
    });
    await appendFile(h.env.configPath, `\n[profiles.wide]\nsandbox_mode = "danger-full-access"\n`);
    const run = await runDriver(h.driver, { prompt: WRITE_BOTH, policy: { sandbox: "workspace_write" } });
    expect(String(run.response?.failure?.message ?? run.error)).toContain("config is no longer supported");
    expect(h.server.responses()).toHaveLength(0);
    expect(insideWritten(h) || outsideWritten(h)).toBe(false);
  });
});

/** `exec_command` asking for write access to a path with `with_additional_permissions` (feature `exec_permission_approvals`). */
const ADDITIONAL_RULE: ResponsesScriptRule = {
  name: "additional-permissions",
  when: whenPromptSays("ADDITIONAL_CMD"),
  reply: (view) => {
    const [, root, cmd] = /ADDITIONAL_CMD (\S+) ([^\n]+)/.exec(view.lastUserText) ?? [];
    return {
      functionCall: {
        name: "exec_command",
        arguments: { cmd, sandbox_permissions: "with_additional_permissions", additional_permissions: { file_system: { write: [root] } } },
      },
    };
  },
};

/** The `request_permissions` tool asking for write access to a path, then a command writing there (feature `request_permissions_tool`). */
const REQUEST_RULE: ResponsesScriptRule = {
  name: "request-permissions",
  when: whenPromptSays("REQUEST_PERMISSIONS"),
  reply: (view) => ({
    functionCall: {
      name: "request_permissions",
      arguments: { permissions: { file_system: { write: [/REQUEST_PERMISSIONS (\S+)/.exec(view.lastUserText)?.[1]] } }, reason: "needed" },
    },
  }),
};

describe.each(["exec", "app-server"] as const)("features that add permissions, enabled with --enable (%s transport)", (transport) => {
  it.each<RunPolicy["sandbox"]>(["workspace_write", "read_only"])(
    "%s: exec_permission_approvals: a command asking for write access outside is rejected under approval_policy never; nothing outside",
    async (sandbox) => {
      h = await codexHarness({
        rules: [ADDITIONAL_RULE],
        config: { transport, extraArgs: ["--enable", "exec_permission_approvals"] },
        outsideTmp: true,
      });
      const root = h.env.root;
      const run = await runDriver(h.driver, { prompt: `ADDITIONAL_CMD ${root} echo out > ${root}/outside.txt`, policy: { sandbox } });
      expect(run.response?.text).toContain("approval policy is Never");
      expect(outsideWritten(h)).toBe(false);
    },
  );

  it("workspace_write: request_permissions_tool: the request for write access outside is granted nothing", async () => {
    h = await codexHarness({
      rules: [REQUEST_RULE],
      config: { transport, extraArgs: ["--enable", "request_permissions_tool"] },
      outsideTmp: true,
    });
    const run = await runDriver(h.driver, { prompt: `REQUEST_PERMISSIONS ${h.env.root}`, policy: { sandbox: "workspace_write" } });
    expect(run.response?.text).toContain('{"permissions":{"network":null,"file_system":null}');
    expect(outsideWritten(h)).toBe(false);
  });
});
