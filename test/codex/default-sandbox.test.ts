import { existsSync } from "node:fs";
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { whenPromptSays, type ResponsesScriptRule } from "@adaptor/testkit";
import { mcpFixtureCommand, readMcpFixtureLog } from "@adaptor/testkit/mcp-fixtures";
import { Agent, mcpStdio, type AgentEvent } from "adaptor";
import { codexHarness, type CodexHarness } from "./support.js";

// A policy that sets no sandbox, on the real binary. Left to itself codex 0.171.0 takes
// `sandbox_mode` from its config, else `workspace-write` for a project config.toml trusts, else
// `read-only`; the driver must not let that default undo what the permission promises.

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Marks the harness's working directory trusted in codex's config.toml. */
async function trustWorkDir(harness: CodexHarness): Promise<void> {
  await appendFile(harness.env.configPath, `\n[projects.${JSON.stringify(harness.env.workDir)}]\ntrust_level = "trusted"\n`);
}

/** What the model read of the last tool call (codex's own summary: exit code, then output). */
function modelRead(harness: CodexHarness): string {
  return String(harness.server.responses().at(-1)?.view.lastToolOutput?.output ?? "");
}

/** The output of the run's one shell command, as codex reported it. */
function shellOutput(run: Awaited<ReturnType<typeof runDriver>>): string {
  return run.recording.ofType("tool-result")[0]?.output ?? "";
}

describe("codex's own sandbox when the policy sets none (real binary)", () => {
  it.each([
    ["app-server", "untrusted cwd", false, false],
    ["app-server", "trusted cwd", true, true],
    ["exec", "untrusted cwd", false, false],
    ["exec", "trusted cwd", true, true],
  ] as const)("%s, %s: a write in the working directory lands: %s", async (transport, _cwd, trusted, lands) => {
    h = await codexHarness({ config: { transport } });
    if (trusted) await trustWorkDir(h);
    const run = await runDriver(h.driver, { prompt: "SHELL_CMD echo own > own.txt" });
    expect(run.response?.failure).toBeUndefined();
    expect(run.recording.asks).toHaveLength(0);
    expect(existsSync(join(h.env.workDir, "own.txt"))).toBe(lands);
    if (!lands) expect(shellOutput(run), "the shell's own complaint, when codex reported the output").toMatch(/^$|Read-only file system/);
    expect(modelRead(h)).toContain(lands ? "Process exited with code 0" : "Process exited with code 1");
  });
});

describe("codex permission ask with no sandbox (real binary)", () => {
  it("an approved command runs as approved, three runs of two shapes; the approvals entry names the sandbox the driver set; codex's config.toml stays as it was", async () => {
    h = await codexHarness();
    const configBefore = await readFile(h.env.configPath, "utf8");
    // A command that ends at once, and one that ends after codex stopped watching for a sandbox
    // denial (in codex's own read-only sandbox the first failed or ran by a race, the second always failed).
    const commands = ["echo first > first-1.txt", "sleep 1; echo first > first-2.txt", "echo first > first-3.txt"];
    for (const [index, command] of commands.entries()) {
      const run = await runDriver(h.driver, { prompt: `SHELL_CMD ${command}`, policy: { approvals: { permission: "ask" } } });
      expect(run.response?.failure).toBeUndefined();
      expect(run.recording.asks.map((ask) => ask.toolName)).toEqual(["shell"]);
      expect(await readFile(join(h.env.workDir, `first-${index + 1}.txt`), "utf8")).toBe("first\n");
      expect(shellOutput(run)).not.toContain("Read-only file system");
      expect(modelRead(h)).toContain("Process exited with code 0");
      expect(run.response?.enforcement).toEqual([
        expect.objectContaining({
          field: "approvals.permission",
          value: "ask",
          enforced: true,
          detail: expect.stringContaining("sandbox danger-full-access (turn/start sandboxPolicy)") as string,
        }),
      ]);
    }
    // thread/start with sandbox danger-full-access would have codex mark the directory trusted there.
    expect(await readFile(h.env.configPath, "utf8")).toBe(configBefore);
  });

  it('codex\'s config sandbox_mode = "read-only": approved runs write, a denied one does not', async () => {
    h = await codexHarness();
    // A top-level key goes before the config's first table.
    await writeFile(h.env.configPath, `sandbox_mode = "read-only"\n${await readFile(h.env.configPath, "utf8")}`);
    const policy = { approvals: { permission: "ask" } } as const;
    const approved = await runDriver(h.driver, { prompt: "SHELL_CMD echo yes > yes.txt", policy });
    const denied = await runDriver(
      h.driver,
      { prompt: "SHELL_CMD echo no > no.txt", policy },
      { onApproval: () => ({ outcome: "deny", reason: "no" }) },
    );
    expect([approved.recording.asks.length, denied.recording.asks.length]).toEqual([1, 1]);
    expect(existsSync(join(h.env.workDir, "yes.txt"))).toBe(true);
    expect(existsSync(join(h.env.workDir, "no.txt"))).toBe(false);
  });
});

/** The model calls the fixture's `echo` (codex offers a server's tools as the namespace `mcp__<server>`). */
const CALL_ECHO: ResponsesScriptRule = {
  when: whenPromptSays("CALL_ECHO"),
  reply: { functionCall: { name: "echo", namespace: "mcp__fixture", arguments: { text: "ping" } } },
};

describe("codex permission auto_approve with no sandbox and an MCP server (real binary)", () => {
  it("the server's tool runs unasked and its result reaches the model, three runs; the approvals entry says so", async () => {
    h = await codexHarness({ rules: [CALL_ECHO] });
    const logFile = join(h.env.root, "mcp.log");
    const command = mcpFixtureCommand({ logFile });
    const agent = new Agent(h.driver, { policy: { approvals: { permission: "auto_approve" } } });
    for (let index = 1; index <= 3; index++) {
      const stream = agent.stream(`CALL_ECHO please (${index})`, {
        mcpServers: [mcpStdio("fixture", command.command, { args: command.args })],
      });
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const result = await stream.result();
      expect(result.status).toBe("completed");
      expect(events.some((event) => event.type === "approval-request")).toBe(false);
      const toolResult = events.find((event) => event.type === "tool-result");
      expect(toolResult).toMatchObject({ isError: false });
      expect(JSON.stringify(toolResult)).toContain("MCP_FIXTURE_OK");
      expect(JSON.stringify(toolResult)).not.toContain("approval policy is never");
      expect(String(h.server.responses().at(-1)?.view.lastToolOutput?.output)).toContain("MCP_FIXTURE_OK");
      expect(result.enforcement).toEqual([
        expect.objectContaining({
          field: "approvals.permission",
          value: "auto_approve",
          enforced: true,
          detail: expect.stringContaining('default_tools_approval_mode = "approve"') as string,
        }),
      ]);
    }
    await agent.close();
    expect((await readMcpFixtureLog(logFile)).filter((entry) => entry.event === "call")).toHaveLength(3);
  });
});
