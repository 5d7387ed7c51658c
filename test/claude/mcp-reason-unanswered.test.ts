import { describe, expect, it } from "vitest";
import { fakeCliEnv, fakeCliPath } from "@adaptor/testkit/fake-cli";
import { Agent, DriverError, findError, type AgentEvent } from "adaptor";
import { claude } from "@adaptor/claude";
import { alive, spawnedPid } from "./support.js";

// Fault injection: a CLI that reports a required MCP server failed, then neither answers the
// driver's mcp_status request (which asks for the server's reason) nor ends its turn. The real
// binary's answer is pinned in mcp.test.ts.

const init =
  JSON.stringify({
    type: "system",
    subtype: "init",
    session_id: "s-1",
    model: "fake-model",
    mcp_servers: [{ name: "issues", status: "failed" }],
  }) + "\n";

describe("claude: a required MCP server's reason never given", () => {
  it("the run fails with the mcp connect error without the reason (not as stopped while starting), long before the stall timeout; process gone", async () => {
    const agent = new Agent(
      claude({
        command: fakeCliPath,
        env: fakeCliEnv([{ awaitStdinLine: true }, { write: init }, { hang: true }]),
        killGraceMs: 300,
        stallTimeoutMs: 120_000,
      }),
    );
    const started = Date.now();
    const stream = agent.stream("hi", {
      mcpServers: [{ name: "issues", transport: "http", url: "http://127.0.0.1:9/mcp", required: true }],
    });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const error = await stream.result().catch((e: unknown) => e);
    expect(findError(error, DriverError)?.message).toBe(
      '[DEVICE_DISCONNECTED] mcp connect: issues (required MCP server reported status "failed")',
    );
    // Well inside the stall timeout (the wait for the answer is bounded at ten seconds).
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(alive(spawnedPid(events)!)).toBe(false);
    await agent.close();
  }, 180_000);
});
