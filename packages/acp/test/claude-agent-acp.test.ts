import { describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer, whenUserSays, type ScriptRule } from "@adaptor/testkit";
import { mcpFixtureCommand } from "@adaptor/testkit/mcp-fixtures";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, isNotice, mcpStdio, type AgentEvent } from "adaptor";
import { claudeAgentAcp } from "../src/index.js";
import { agentPolicySuite, type SuiteHarness } from "./agent-suite.js";

// Claude Code through Zed's ACP adapter @zed-industries/claude-agent-acp 0.23.1 against the
// testkit's scripted Anthropic server on 127.0.0.1 (its WRITE_FILE / SHELL_CMD / SLOW_MS
// directives), in an isolated claude environment.

async function harness(rules: ScriptRule[] = []): Promise<SuiteHarness> {
  const server = await startAnthropicServer({
    rules: [{ when: whenUserSays("say hello"), reply: { text: "Hello from the scripted model." } }, ...rules],
  });
  const env = await claudeTestEnv({ server });
  const agent = new Agent(claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }));
  return {
    agent,
    workDir: env.workDir,
    home: env.home,
    async close() {
      await agent.close();
      await server.close();
      await env.cleanup();
    },
  };
}

describe("claude-agent-acp on the real adapter", () => {
  agentPolicySuite({
    harness: () => harness(),
    writePrompt: (_, file) => `WRITE_FILE ${file}`,
    touchPrompt: (_, file) => `SHELL_CMD touch ${file}`,
    writeTool: "Write",
    shellTool: "Bash",
    // Its plan mode still wrote the file; dontAsk denies every tool that needs permission.
    modes: { ask: "default", readOnly: "dontAsk" },
    afterReadOnly: (_, events) => {
      expect(events.some((e) => e.type === "approval-request")).toBe(false);
      expect(events.find((e) => e.type === "tool-result")).toMatchObject({ name: "Write", isError: true });
    },
  });

  it("a thread's second turn on its parked process gets the session.init of the session it continues", async () => {
    const server = await startAnthropicServer({
      rules: [{ when: whenUserSays("say hello"), reply: { text: "Hello from the scripted model." } }],
    });
    const env = await claudeTestEnv({ server });
    const agent = new Agent(claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }), {
      threadStore: new MemoryThreadStore(),
    });
    try {
      const turns: { events: AgentEvent[]; sessionId: string | undefined }[] = [];
      for (const prompt of ["please say hello", "please say hello again"]) {
        const stream = agent.thread("t").stream(prompt);
        const events: AgentEvent[] = [];
        for await (const event of stream) events.push(event);
        turns.push({ events, sessionId: (await stream.result()).sessionId });
      }
      const [first, second] = turns;
      expect(second!.events.some((e) => e.type === "notice" && e.message === "process reused")).toBe(true);
      expect(second!.sessionId).toBe(first!.sessionId);
      const inits = second!.events.filter((e) => isNotice(e, "session.init"));
      expect(inits.map((e) => (isNotice(e, "session.init") ? e.data?.sessionId : undefined))).toEqual([second!.sessionId]);
      expect(second!.events.findIndex((e) => e.type === "text-delta")).toBeGreaterThan(second!.events.indexOf(inits[0]!));
    } finally {
      await agent.close();
      await server.close();
      await env.cleanup();
    }
  });

  it("MCP over stdio: the model calls the fixture's tool and its result comes back; required, it is found running after the turn", async () => {
    const fixture = mcpFixtureCommand();
    const h = await harness([
      { when: whenUserSays("CALL_ECHO"), reply: { toolUse: { name: "mcp__fixture__echo", input: { text: "ping" } } } },
    ]);
    try {
      const result = await h.agent.run("CALL_ECHO please", {
        mcpServers: [mcpStdio("fixture", fixture.command, { args: fixture.args, required: true })],
        onApproval: (request) => request.approve(),
      });
      expect(result.text).toMatch(/^Done: .*ping/);
    } finally {
      await h.close();
    }
  });
});
