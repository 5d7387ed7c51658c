// MCP declarations through the Agent (issue 6 §2): every configuration error and every capability
// error rejects before the driver runs (the scripted driver's run is never called).
import { describe, expect, it } from "vitest";
import type { DriverRequest, McpTransport } from "@adaptor/driver";
import {
  Agent,
  ErrInvalidMCPConfig,
  ErrMCPTransportUnsupported,
  ErrMCPUnsupported,
  isError,
  mcpHttp,
  mcpSse,
  mcpStdio,
  type McpServer,
} from "adaptor";
import { scriptedDriver } from "./scripted-driver.js";

function driverWith(transports: readonly McpTransport[]) {
  const base = scriptedDriver(async () => ({ text: "ok" }));
  const descriptor = { ...base.descriptor, capabilities: { ...base.descriptor.capabilities, mcp: { transports } } };
  return Object.assign(base, { descriptor });
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}

describe("MCP declarations: errors before the driver runs", () => {
  const cases: [string, readonly McpServer[], string][] = [
    ["missing name", [mcpStdio("", "node")], "MCP server #1: missing name"],
    ["duplicate name", [mcpStdio("files", "node"), mcpStdio("files", "deno")], 'MCP server "files": duplicate name'],
    ["missing command", [mcpStdio("files", "")], 'MCP server "files": missing command'],
    ["missing URL", [mcpHttp("web", "")], 'MCP server "web": missing url'],
    [
      "unknown transport",
      [{ name: "ws", transport: "websocket", url: "ws://x" } as unknown as McpServer],
      'MCP server "ws": unknown transport "websocket"',
    ],
    [
      "a field of another transport",
      [{ ...mcpHttp("web", "http://127.0.0.1:1/mcp"), args: ["x"] } as unknown as McpServer],
      'MCP server "web": field args does not apply to transport http',
    ],
  ];
  for (const [what, servers, message] of cases) {
    it(`${what} → ErrInvalidMCPConfig naming the server, no driver run`, async () => {
      const driver = driverWith(["stdio", "http", "sse"]);
      const error = await rejection(new Agent(driver).run("hi", { mcpServers: servers }));
      expect(isError(error, ErrInvalidMCPConfig)).toBe(true);
      expect(error.message).toContain(message);
      expect(driver.requests).toHaveLength(0);
    });
  }

  it("an unset bearer token variable → ErrInvalidMCPConfig, no driver run", async () => {
    const driver = driverWith(["http"]);
    const error = await rejection(
      new Agent(driver).run("hi", {
        mcpServers: [mcpHttp("web", "http://127.0.0.1:1/mcp", { bearerTokenEnv: "ADAPTOR_TEST_NO_SUCH_TOKEN" })],
      }),
    );
    expect(isError(error, ErrInvalidMCPConfig)).toBe(true);
    expect(driver.requests).toHaveLength(0);
  });

  it("a driver without MCP → ErrMCPUnsupported, no driver run", async () => {
    const driver = driverWith([]);
    const error = await rejection(new Agent(driver).run("hi", { mcpServers: [mcpStdio("files", "node")] }));
    expect(isError(error, ErrMCPUnsupported)).toBe(true);
    expect(isError(error, ErrMCPTransportUnsupported)).toBe(false);
    expect(driver.requests).toHaveLength(0);
  });

  it("a transport the driver lacks → ErrMCPTransportUnsupported naming the server, no driver run", async () => {
    const driver = driverWith(["stdio"]);
    const error = await rejection(
      new Agent(driver).run("hi", { mcpServers: [mcpStdio("files", "node"), mcpSse("legacy", "http://127.0.0.1:1/sse")] }),
    );
    expect(isError(error, ErrMCPTransportUnsupported)).toBe(true);
    expect(error.message).toContain('MCP server "legacy"');
    expect(driver.requests).toHaveLength(0);
  });

  it("the stream's run-finished reports the failure and the verdict rejects (no unhandled rejection)", async () => {
    const driver = driverWith([]);
    const stream = new Agent(driver).stream("hi", { mcpServers: [mcpStdio("files", "node")] });
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: false });
    expect(isError(await rejection(stream.result()), ErrMCPUnsupported)).toBe(true);
  });
});

describe("MCP servers reach the driver", () => {
  it("validated, bearer token resolved from the run env, required kept", async () => {
    const driver = driverWith(["stdio", "http"]);
    await new Agent(driver).run("hi", {
      env: { ISSUES_TOKEN: "t-123" },
      mcpServers: [
        mcpStdio("files", "node", { args: ["srv.js"], required: true }),
        mcpHttp("issues", "https://mcp.example.com/mcp", { bearerTokenEnv: "ISSUES_TOKEN" }),
      ],
    });
    expect(driver.requests[0]?.mcpServers).toEqual([
      { name: "files", transport: "stdio", command: "node", args: ["srv.js"], required: true },
      { name: "issues", transport: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer t-123" } },
    ]);
  });

  it("a call's list replaces the agent's; an empty call list clears it; no list keeps the agent's", async () => {
    const driver = driverWith(["stdio"]);
    const agent = new Agent(driver, { mcpServers: [mcpStdio("agent-level", "node")] });
    await agent.run("one");
    await agent.run("two", { mcpServers: [mcpStdio("call-level", "node")] });
    await agent.run("three", { mcpServers: [] });
    const names = (request: DriverRequest | undefined) => request?.mcpServers?.map((s) => s.name);
    expect(names(driver.requests[0])).toEqual(["agent-level"]);
    expect(names(driver.requests[1])).toEqual(["call-level"]);
    expect(names(driver.requests[2])).toBeUndefined();
  });

  it("no servers declared: a driver without MCP runs normally", async () => {
    const driver = driverWith([]);
    expect((await new Agent(driver).run("hi")).text).toBe("ok");
    expect(driver.requests[0]?.mcpServers).toBeUndefined();
  });
});
