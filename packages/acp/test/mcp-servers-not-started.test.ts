import { afterEach, describe, expect, it } from "vitest";
import { Agent, mcpStdio, type AgentEvent, type RunOptions } from "adaptor";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import { hostileAcp, text, type HostileScenario } from "./hostile-agent/hostile.js";

// ACP reports no MCP server status: after a turn the driver looks for each declared stdio server
// among the agent's processes. Nanocoder 1.30.0 never reads session/new's mcpServers.

let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** A stdio server that stays up while its stdin is open. */
const server = (name: string, required: boolean) => mcpStdio(name, process.execPath, { args: ["-e", "process.stdin.resume()"], required });

async function turn(launches: boolean, options: RunOptions): Promise<{ events: AgentEvent[]; error: unknown }> {
  const scenario: HostileScenario = {
    ...(launches ? { "session/new": [{ spawnMcpServers: true }, { respond: { sessionId: "hostile-session" } }] } : {}),
    "session/prompt": [[text("ok"), { respond: { stopReason: "end_turn" } }]],
  };
  agent = new Agent(hostileAcp(scenario));
  const stream = agent.stream("go", options);
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const error = await stream.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { events, error };
}

const mcpNotices = (events: readonly AgentEvent[]) =>
  events.flatMap((e) => (e.type === "notice" && e.kind === "mcp.status" ? [e.data] : []));

describe.runIf(process.platform === "linux")("declared stdio MCP servers the agent does not start", () => {
  it("a required one fails the run with DriverError DEVICE_DISCONNECTED (op mcp connect) naming it, after a notice", async () => {
    const run = await turn(false, { mcpServers: [server("fx", true)] });
    const error = findError(run.error, DriverError);
    expect([error?.code, error?.op, error?.device]).toEqual([ErrCode.DeviceDisconnected, "mcp connect", "fx"]);
    expect(String(error?.cause)).toContain("required MCP server not running at the end of the turn");
    expect(mcpNotices(run.events)).toEqual([{ servers: [{ name: "fx", status: "not_running" }] }]);
  });

  it("one not required: the run completes with a notice mcp.status naming it not_running", async () => {
    const run = await turn(false, { mcpServers: [server("fx", false)] });
    expect(run.error).toBeUndefined();
    expect(mcpNotices(run.events)).toEqual([{ servers: [{ name: "fx", status: "not_running" }] }]);
  });

  it("one whose command does not exist: the notice's not_running carries why (command not found), not just that the agent did not start it", async () => {
    const run = await turn(true, { mcpServers: [mcpStdio("ghost", "/nonexistent/mcp-server-xyz")] });
    expect(run.error).toBeUndefined();
    expect(mcpNotices(run.events)).toEqual([
      { servers: [{ name: "ghost", status: "not_running", error: "command not found: /nonexistent/mcp-server-xyz" }] },
    ]);
  });

  it("a required one whose command does not exist is refused before the agent starts: DriverError DEVICE_DISCONNECTED naming it and the command", async () => {
    const run = await turn(true, { mcpServers: [mcpStdio("ghost", "no-such-mcp-server-xyz", { required: true })] });
    const error = findError(run.error, DriverError);
    expect([error?.code, error?.op, error?.device]).toEqual([ErrCode.DeviceDisconnected, "mcp connect", "ghost"]);
    expect(error?.message).toBe("[DEVICE_DISCONNECTED] mcp connect: ghost (command not found: no-such-mcp-server-xyz)");
    expect(run.events.some((event) => event.type === "process")).toBe(false);
  });

  it("servers the agent started (found by name among its processes): no notice, the run completes", async () => {
    const run = await turn(true, { mcpServers: [server("fx", true), server("other", false)] });
    expect(run.error).toBeUndefined();
    expect(mcpNotices(run.events)).toEqual([]);
  });
});
