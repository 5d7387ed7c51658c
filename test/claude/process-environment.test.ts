import { afterEach, describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { claude, type ClaudeConfig } from "@adaptor/claude";

// Real claude binary (pinned 2.1.332) against the scripted Anthropic server: what the CLI and its
// Bash tool see of the host environment, and how much raw output a run keeps.

const SECRET_NAME = "ADAPTOR_TEST_HOST_SECRET";
const SECRET = "hunter2-host-secret";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
  delete process.env[SECRET_NAME];
});

/** An Agent on the real binary whose config inherits from the host as `config` says (no `inheritEnv: false`). */
async function hostAgent(config: ClaudeConfig): Promise<{ agent: Agent; server: AnthropicServer; env: ClaudeTestEnv }> {
  const server = await startAnthropicServer();
  const env = await claudeTestEnv({ server });
  const agent = new Agent(claude({ cwd: env.workDir, env: env.env, model: "claude-sonnet-4-5", ...config }));
  cleanup = async () => {
    await agent.close();
    await server.close();
    await env.cleanup();
  };
  return { agent, server, env };
}

describe("claude child environment on the real binary", () => {
  it("host secret leak: by default a host variable does not reach the Bash tool's output (sent to the model)", async () => {
    process.env[SECRET_NAME] = SECRET;
    const { agent, server } = await hostAgent({});
    const result = await agent.run(`SHELL_CMD echo "secret=[$${SECRET_NAME}] path=[$PATH]"`, { policy: { sandbox: "unrestricted" } });
    const toolResult = server.requests.at(-1)?.view.lastToolResult?.content ?? "";
    expect(toolResult).toContain("secret=[]");
    expect(toolResult).toContain(`path=[${process.env.PATH ?? ""}]`); // the safe base still arrives
    expect(toolResult).not.toContain(SECRET);
    expect(result.text).not.toContain(SECRET);
  });

  it("inheritEnv allowlist: a host variable the host names does reach the Bash tool", async () => {
    process.env[SECRET_NAME] = SECRET;
    const { agent, server } = await hostAgent({ inheritEnv: ["PATH", "ADAPTOR_TEST_*"] });
    await agent.run(`SHELL_CMD echo "secret=[$${SECRET_NAME}]"`, { policy: { sandbox: "unrestricted" } });
    expect(server.requests.at(-1)?.view.lastToolResult?.content ?? "").toContain(`secret=[${SECRET}]`);
  });

  it("unbounded raw output: maxRawBytes keeps a tail of stdout with the real byte count and a truncated flag", async () => {
    const { agent } = await hostAgent({ inheritEnv: false, maxRawBytes: 512 });
    const result = await agent.run("say something");
    const raw = result.raw();
    expect(raw.stdoutTruncated).toBe(true);
    expect(raw.stdoutBytes).toBeGreaterThan(512);
    expect(Buffer.byteLength(raw.stdout)).toBeLessThanOrEqual(512);
    expect(raw.stdout.trimEnd().endsWith("}")).toBe(true); // the tail ends with the result line
    expect(raw.terminal?.json).toContain('"type":"result"');
  });
});
