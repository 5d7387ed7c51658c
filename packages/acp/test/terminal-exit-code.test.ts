import { afterEach, describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer, whenUserSays, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { claudeAcp, collect } from "./support.js";

// A command the agent runs in a terminal the host serves (ACP `terminal/*`): claude-code-acp 0.16.2
// runs Claude Code's Bash there and names the terminal in the call's content, so the host knows the
// command's exit status and the call's `tool-result` carries it.

let h: { server: AnthropicServer; env: ClaudeTestEnv; agent: Agent } | undefined;
afterEach(async () => {
  await h?.agent.close();
  await h?.env.cleanup();
  await h?.server.close();
  h = undefined;
});

describe("claude-code-acp on the real adapter: a host terminal's exit code", () => {
  it("a Bash call run in a host terminal has the command's exit code on its tool-result and transcript item", async () => {
    const command = "sh -c 'echo oops; exit 3'";
    // With the host's terminal offered, 0.16.2 gives the model its own Bash tool (mcp__acp__Bash) in place of Claude Code's.
    const server = await startAnthropicServer({
      rules: [
        {
          when: whenUserSays("RUN_IN_TERMINAL"),
          reply: {
            toolUse: { name: "mcp__acp__Bash", input: { command, description: "fail with 3", timeout: 60_000, run_in_background: false } },
          },
        },
      ],
    });
    const env = await claudeTestEnv({ server });
    // The host's fs and terminal offered: the adapter runs Bash in a host terminal.
    h = { server, env, agent: new Agent(claudeAcp(env, { hostCapabilities: true })) };
    const stream = h.agent.stream("RUN_IN_TERMINAL", { onApproval: (request) => request.approve() });
    const events = await collect(stream);
    const result = await stream.result();
    expect(events.some((e) => e.type === "notice" && e.kind === "host" && String(e.message).startsWith("terminal/create"))).toBe(true);
    const results = events.filter((e) => e.type === "tool-result");
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ exitCode: 3 });
    expect(result.transcript().find((item) => item.kind === "tool-result")).toMatchObject({ exitCode: 3 });
  });
});
