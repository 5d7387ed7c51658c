import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { whenChatToolResult, whenChatUserSays, type ChatScriptRule } from "@adaptor/testkit";
import { mcpFixtureCommand } from "@adaptor/testkit/mcp-fixtures";
import { mcpStdio } from "adaptor";
import { opencode } from "../src/index.js";
import { agentPolicySuite } from "./agent-suite.js";
import { chatHarness, type ChatHarness } from "./chat-agent.js";
import { opencodeTestConfig } from "./opencode-env.js";

// OpenCode 1.18.33 over ACP (`opencode acp`) against the testkit's scripted chat-completions server
// on 127.0.0.1, as an OpenAI-compatible provider. Its proxies point at a closed port and its home is private.

/** `RUN_TOUCH <path>` → OpenCode's `bash` touching it; `WRITE_IT <path>` → its `write`; "say hello" → a greeting. */
export const OPENCODE_RULES: readonly ChatScriptRule[] = [
  { when: whenChatUserSays("say hello"), reply: { text: "Hello from the scripted model." } },
  {
    when: whenChatUserSays("RUN_TOUCH"),
    reply: (view) => ({
      toolCall: {
        name: "bash",
        arguments: { command: `touch ${/RUN_TOUCH (\S+)/.exec(view.lastUserText)?.[1] ?? ""}`, description: "touch" },
      },
    }),
  },
  {
    when: whenChatUserSays("WRITE_IT"),
    reply: (view) => ({
      toolCall: { name: "write", arguments: { filePath: /WRITE_IT (\S+)/.exec(view.lastUserText)?.[1] ?? "", content: "hello\n" } },
    }),
  },
];

const harness = (rules: readonly ChatScriptRule[] = OPENCODE_RULES): Promise<ChatHarness> =>
  chatHarness((home, server) => opencode(opencodeTestConfig(home, server)), rules);

describe("opencode on the real binary", () => {
  agentPolicySuite<ChatHarness>({
    harness: () => harness(),
    writePrompt: (_, file) => `WRITE_IT ${file}`,
    touchPrompt: (_, file) => `RUN_TOUCH ${file}`,
    writeTool: "write",
    shellTool: "bash",
    modes: { ask: "adaptor-ask", readOnly: "adaptor-read-only" },
    afterReadOnly: (h) => {
      // The preset's read-only agent offers the model no tool that writes, runs or delegates.
      const offered = h.server.turns().find((view) => view.lastUserText.includes("WRITE_IT") && view.toolNames.length > 0)?.toolNames ?? [];
      expect(offered).toContain("read");
      for (const tool of ["write", "edit", "bash", "task"]) expect(offered).not.toContain(tool);
    },
  });

  it("under ask a sub-agent delegation (task) is denied without asking: its sub-agent's command would run unasked and unseen", async () => {
    // OpenCode's sub-agent runs as another OpenCode agent in its own session: its asks never reach
    // the ACP client, so approving `task` would approve the sub-agent's commands unseen.
    const h = await harness([
      {
        when: whenChatUserSays("RUN_SUB"),
        reply: (view) => ({
          toolCall: {
            name: "bash",
            arguments: { command: `touch ${/RUN_SUB (\S+)/.exec(view.lastUserText)?.[1] ?? ""}`, description: "touch" },
          },
        }),
      },
      { when: whenChatToolResult("bash"), reply: { text: "sub done" } },
      {
        when: whenChatUserSays("DELEGATE"),
        reply: (view) => ({
          toolCall: {
            name: "task",
            arguments: {
              description: "sub",
              prompt: `RUN_SUB ${/DELEGATE (\S+)/.exec(view.lastUserText)?.[1] ?? ""}`,
              subagent_type: "general",
            },
          },
        }),
      },
      { when: whenChatToolResult("task"), reply: (view) => ({ text: `parent saw: ${view.lastToolResult?.content ?? ""}` }) },
    ]);
    try {
      const file = join(h.workDir, "sub1");
      const asked: string[] = [];
      const notices: string[] = [];
      const stream = h.agent.stream(`DELEGATE ${file}`, {
        policy: { approvals: { permission: "ask" } },
        onApproval: (request) => {
          asked.push(request.toolName ?? "");
          request.approve();
        },
      });
      for await (const event of stream) if (event.type === "notice" && event.kind === "policy") notices.push(event.message ?? "");
      const result = await stream.result();
      expect(result.status).toBe("completed");
      expect(asked).toEqual([]);
      expect(notices.join("\n")).toMatch(/denied without asking: .*task.*sub-agent/);
      expect(existsSync(file)).toBe(false);
      expect(h.server.turns().some((view) => view.lastUserText.includes("RUN_SUB"))).toBe(false);
      expect(result.enforcement.find((e) => e.field === "approvals.permission")?.enforced).toBe(true);
    } finally {
      await h.close();
    }
  });

  it("MCP over stdio: the model calls the fixture's tool and its result comes back; required, it is found running after the turn", async () => {
    const fixture = mcpFixtureCommand();
    const h = await harness([
      { when: whenChatUserSays("CALL_ECHO"), reply: { toolCall: { name: "fixture_echo", arguments: { text: "ping" } } } },
      { when: whenChatToolResult("fixture_echo"), reply: (view) => ({ text: `echoed: ${view.lastToolResult?.content ?? ""}` }) },
    ]);
    try {
      const result = await h.agent.run("CALL_ECHO please", {
        mcpServers: [mcpStdio("fixture", fixture.command, { args: fixture.args, required: true })],
      });
      expect(result.text).toMatch(/^echoed: .*ping/);
    } finally {
      await h.close();
    }
  });
});
