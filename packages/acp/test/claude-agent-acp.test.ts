import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer, whenUserSays, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { mcpFixtureCommand } from "@adaptor/testkit/mcp-fixtures";
import { Agent, mcpStdio } from "adaptor";
import { claudeAgentAcp } from "../src/index.js";
import { collect, expectCancelLeavesNothing } from "./support.js";

// Claude Code through Zed's ACP adapter @zed-industries/claude-agent-acp 0.23.1 against the
// testkit's scripted Anthropic server on 127.0.0.1, in an isolated claude environment.

interface Harness {
  readonly server: AnthropicServer;
  readonly env: ClaudeTestEnv;
  readonly agent: Agent;
}
let h: Harness | undefined;
afterEach(async () => {
  await h?.agent.close();
  await h?.server.close();
  await h?.env.cleanup();
  h = undefined;
});

async function harness(rules: Parameters<typeof startAnthropicServer>[0] = {}): Promise<Harness> {
  const server = await startAnthropicServer(rules);
  const env = await claudeTestEnv({ server });
  h = { server, env, agent: new Agent(claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false })) };
  return h;
}

describe("claude-agent-acp on the real adapter", () => {
  it("text turn: the final text and deltas", async () => {
    await harness({ rules: [{ when: whenUserSays("say hello"), reply: { text: "Hello from the scripted model." } }] });
    const stream = h!.agent.stream("please say hello");
    const events = await collect(stream);
    const result = await stream.result();
    expect(result.text).toBe("Hello from the scripted model.");
    expect(
      events
        .filter((e) => e.type === "text-delta")
        .map((e) => (e.type === "text-delta" ? e.text : ""))
        .join(""),
    ).toBe(result.text);
  });

  it("tool approved under ask: session mode default is set and checked; Write is asked once and runs", async () => {
    await harness();
    const file = join(h!.env.workDir, "approved.txt");
    const asked: string[] = [];
    const result = await h!.agent.run(`WRITE_FILE ${file}`, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(String(request.toolName));
        request.approve();
      },
    });
    expect(asked).toEqual(["Write"]);
    expect(existsSync(file)).toBe(true);
    expect(result.enforcement).toEqual([
      expect.objectContaining({
        field: "approvals.permission",
        value: "ask",
        enforced: true,
        mechanisms: ["agent_mode", "approval", "host_capability"],
      }),
    ]);
  });

  it("ask really asks: a denying handler stops the shell command and the file it would write is absent", async () => {
    await harness();
    const file = join(h!.env.workDir, "touched.txt");
    const asked: string[] = [];
    const stream = h!.agent.stream(`SHELL_CMD touch ${file}`, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(`${String(request.toolName)}: ${String((request.input as { command?: unknown }).command)}`);
        request.deny("no shell today");
      },
    });
    const events = await collect(stream);
    await stream.result();
    expect(asked).toEqual([`Bash: touch ${file}`]);
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ isError: true });
    expect(existsSync(file)).toBe(false);
  });

  it("read_only really blocks writes: session mode dontAsk (its plan mode wrote the file) denies Write; the file is absent", async () => {
    await harness();
    const file = join(h!.env.workDir, "blocked.txt");
    const stream = h!.agent.stream(`WRITE_FILE ${file}`, { policy: { sandbox: "read_only" }, onApproval: (request) => request.approve() });
    const events = await collect(stream);
    const result = await stream.result();
    expect(events.some((e) => e.type === "notice" && e.message === "session mode dontAsk")).toBe(true);
    expect(events.some((e) => e.type === "approval-request")).toBe(false);
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ name: "Write", isError: true });
    expect(existsSync(file)).toBe(false);
    expect(result.enforcement).toEqual([
      expect.objectContaining({ field: "sandbox", value: "read_only", enforced: true, mechanisms: ["agent_mode", "host_capability"] }),
    ]);
  });

  it("cancel mid-turn: no process is left; the verdict is the abort", async () => {
    await harness({ rules: [{ when: whenUserSays("slow"), reply: { text: "too late", delayMs: 30_000 } }] });
    await expectCancelLeavesNothing(h!.agent, "slow one", h!.env.home);
  });

  it("MCP over stdio: the model calls the fixture's tool and its result comes back", async () => {
    const fixture = mcpFixtureCommand();
    await harness({
      rules: [{ when: whenUserSays("CALL_ECHO"), reply: { toolUse: { name: "mcp__fixture__echo", input: { text: "ping" } } } }],
    });
    const result = await h!.agent.run("CALL_ECHO please", {
      mcpServers: [mcpStdio("fixture", fixture.command, { args: fixture.args })],
      onApproval: (request) => request.approve(),
    });
    expect(result.text).toMatch(/^Done: .*ping/);
  });
});
