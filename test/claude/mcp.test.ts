// MCP servers on the real claude binary (pinned 2.1.332) against the scripted Anthropic server, with
// the testkit's stdio MCP fixture (@modelcontextprotocol/sdk). Issue 6 §2-§3.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { refusedLocalPort, whenUserSays } from "@adaptor/testkit";
import { MCP_FIXTURE_MARKER, mcpFixtureCommand, readMcpFixtureLog } from "@adaptor/testkit/mcp-fixtures";
import {
  Agent,
  DriverError,
  ErrCode,
  ErrMCPTransportUnsupported,
  Result,
  RunError,
  errorCode,
  findError,
  isError,
  mcpSse,
  isNotice,
  mcpHttp,
  mcpStdio,
  type AgentEvent,
  type McpServerState,
} from "adaptor";
import { CLAUDE_DESCRIPTOR, claude } from "@adaptor/claude";
import { alive, harness, spawnedPid, type Harness } from "./support.js";

let h: Harness | undefined;
let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "claude-mcp-"));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await rm(work, { recursive: true, force: true });
});

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The `mcp.status` notice the driver emits from the init line. */
function mcpStatus(events: readonly AgentEvent[]): readonly McpServerState[] | undefined {
  const notices = events.filter((event) => isNotice(event, "mcp.status"));
  expect(notices).toHaveLength(1);
  const notice = notices[0];
  const servers = notice && isNotice(notice, "mcp.status") ? notice.data?.servers : undefined;
  // The tools come in the order the CLI lists them, which is not always the server's.
  return servers?.map((server) => (server.tools ? { ...server, tools: [...server.tools].sort() } : server));
}

const FIXTURE_TOOLS = ["crash", "echo", "elicit", "elicit_url", "peek"];

const callEcho = { when: whenUserSays("CALL_ECHO"), reply: { toolUse: { name: "mcp__fixture__echo", input: { text: "ping" } } } };

describe("MCP servers on the real claude binary", () => {
  it("stdio server: the scripted model calls its tool and the result reaches the model; only our servers load", async () => {
    h = await harness([callEcho], {}, { onApproval: (request) => request.approve() });
    // The user's own (user-scope) server must not load by default (--strict-mcp-config).
    await writeFile(
      join(h.env.configDir, ".claude.json"),
      JSON.stringify({ mcpServers: { users: { type: "stdio", ...mcpFixtureCommand() } } }),
    );
    const log = join(work, "fixture.jsonl");
    const fixture = mcpFixtureCommand({ logFile: log });
    const broken = mcpFixtureCommand({ failStart: true });
    const stream = h.agent.stream("CALL_ECHO please", {
      mcpServers: [
        mcpStdio("fixture", fixture.command, { args: fixture.args, required: true }),
        mcpStdio("optional", broken.command, { args: broken.args }),
      ],
    });
    const events = await collect(stream);
    const result = await stream.result();

    // One shape for every driver: the status in one vocabulary, Claude Code's word, the failed
    // server's error (Claude Code's answer to `mcp_status`) and the connected one's tools.
    expect(mcpStatus(events)).toEqual([
      { name: "fixture", status: "connected", cliStatus: "connected", source: "dynamic", tools: FIXTURE_TOOLS },
      { name: "optional", status: "failed", cliStatus: "failed", source: "dynamic", error: "Connection closed" },
    ]);
    const toolResult = events.find((event) => event.type === "tool-result");
    expect(toolResult).toMatchObject({ name: "mcp__fixture__echo", isError: false, output: `echo: ping (${MCP_FIXTURE_MARKER})` });
    // The model got the server's answer (request log of the scripted server).
    const last = h.server.requests.at(-1)?.view.lastToolResult;
    expect(last).toMatchObject({ toolName: "mcp__fixture__echo", isError: false, content: `echo: ping (${MCP_FIXTURE_MARKER})` });
    expect(result.text).toBe(`Done: echo: ping (${MCP_FIXTURE_MARKER})`);
    expect((await readMcpFixtureLog(log)).filter((entry) => entry.event === "call")).toMatchObject([{ tool: "echo", text: "ping" }]);
  });

  it("a stdio server whose command is found only via PATH starts when inheritEnv lists other names (the list adds to the safe base)", async () => {
    h = await harness([callEcho], {}, { onApproval: (request) => request.approve() });
    const bin = join(work, "bin");
    await mkdir(bin);
    const fixture = mcpFixtureCommand({ logFile: join(work, "path-only.jsonl") });
    const quoted = [fixture.command, ...fixture.args].map((part) => `'${part}'`).join(" ");
    await writeFile(join(bin, "adaptor-path-only-mcp"), `#!/bin/sh\nexec ${quoted} "$@"\n`, { mode: 0o755 });
    const stream = h.agent.stream("CALL_ECHO please", {
      env: { PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`, FIXTURE_REGION: "eu" },
      mcpServers: [mcpStdio("fixture", "adaptor-path-only-mcp", { inheritEnv: ["FIXTURE_*"], required: true })],
    });
    const events = await collect(stream);
    const result = await stream.result();
    expect(mcpStatus(events)).toEqual([
      { name: "fixture", status: "connected", cliStatus: "connected", source: "dynamic", tools: FIXTURE_TOOLS },
    ]);
    expect(result.text).toBe(`Done: echo: ping (${MCP_FIXTURE_MARKER})`);
  });

  it("userMcpServers: true also loads the user's own servers", async () => {
    h = await harness([], { userMcpServers: true });
    // Servers that exit at once keep this run short; their listing is what counts.
    const quick = mcpFixtureCommand({ failStart: true });
    await writeFile(join(h.env.configDir, ".claude.json"), JSON.stringify({ mcpServers: { users: { type: "stdio", ...quick } } }));
    const fixture = quick;
    const events = await collect(h.agent.stream("hello", { mcpServers: [mcpStdio("fixture", fixture.command, { args: fixture.args })] }));
    expect(
      mcpStatus(events)
        ?.map(({ name, source }) => `${name}:${source}`)
        .sort(),
    ).toEqual(["fixture:dynamic", "users:user"]);
  });

  it("server crashing mid-call: classified verdict within the timeout, no hang, no unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      h = await harness([callEcho], {}, { onApproval: (request) => request.approve() });
      const log = join(work, "crash.jsonl");
      const fixture = mcpFixtureCommand({ logFile: log, crashOnCall: true });
      const started = Date.now();
      const stream = h.agent.stream("CALL_ECHO now", {
        timeoutMs: 90_000,
        mcpServers: [mcpStdio("fixture", fixture.command, { args: fixture.args, required: true })],
      });
      const events = await collect(stream);
      const verdict: unknown = await stream.result().catch((error: unknown) => error);
      expect(Date.now() - started).toBeLessThan(90_000);
      expect((await readMcpFixtureLog(log)).map((entry) => entry.event)).toEqual(["start", "call", "crash"]);
      // claude reports the lost server to the model as an error tool result and finishes the turn.
      expect(verdict).toBeInstanceOf(Result);
      expect(events.find((event) => event.type === "tool-result")).toMatchObject({
        name: "mcp__fixture__echo",
        isError: true,
        output: "Connection closed",
      });
      expect(h.server.requests.at(-1)?.view.lastToolResult).toMatchObject({ isError: true, content: "Connection closed" });
      expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: true });
      const pid = spawnedPid(events);
      expect(pid !== undefined && alive(pid)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("a required server that cannot start fails the run: DriverError DEVICE_DISCONNECTED naming it with Claude Code's reason, in the error and the mcp.status notice; process gone", async () => {
    h = await harness();
    const broken = mcpFixtureCommand({ failStart: true });
    const stream = h.agent.stream("hello", { mcpServers: [mcpStdio("broken", broken.command, { args: broken.args, required: true })] });
    const events = await collect(stream);
    const error = await stream.result().catch((e: unknown) => e);
    expect(errorCode(error)).toBe(ErrCode.DeviceDisconnected);
    const driverError = findError(error, DriverError);
    expect(driverError).toMatchObject({ op: "mcp connect", device: "broken" });
    expect((error as Error).message).toBe(
      '[DEVICE_DISCONNECTED] mcp connect: broken (required MCP server reported status "failed": Connection closed)',
    );
    expect((driverError?.cause as Error | undefined)?.message).toBe('required MCP server reported status "failed": Connection closed');
    expect(mcpStatus(events)).toEqual([
      { name: "broken", status: "failed", cliStatus: "failed", source: "dynamic", error: "Connection closed" },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: false });
    const pid = spawnedPid(events);
    expect(pid).toBeDefined();
    expect(alive(pid ?? 0)).toBe(false);
  });

  it("a stdio server whose command does not exist: its mcp.status error says so, not claude's Connection closed", async () => {
    h = await harness();
    const stream = h.agent.stream("hello", { mcpServers: [mcpStdio("ghost", "/nonexistent/mcp-server-xyz")] });
    const events = await collect(stream);
    await stream.result();
    expect(mcpStatus(events)).toEqual([
      { name: "ghost", status: "failed", cliStatus: "failed", source: "dynamic", error: "command not found: /nonexistent/mcp-server-xyz" },
    ]);
  });

  it("a required stdio server whose command does not exist is refused before launch: DriverError DEVICE_DISCONNECTED naming it and the command, no process started", async () => {
    h = await harness();
    const stream = h.agent.stream("hello", { mcpServers: [mcpStdio("ghost", "no-such-mcp-server-xyz", { required: true })] });
    const events = await collect(stream);
    const error = await stream.result().catch((e: unknown) => e);
    expect(findError(error, DriverError)).toMatchObject({ code: ErrCode.DeviceDisconnected, op: "mcp connect", device: "ghost" });
    expect((error as Error).message).toBe("[DEVICE_DISCONNECTED] mcp connect: ghost (command not found: no-such-mcp-server-xyz)");
    expect(events.some((event) => event.type === "process")).toBe(false);
  });

  it("the active-execution budget running out while a required server is still starting: RunError active_execution_timeout saying so, the mcp connect error (still starting when stopped) as cause, process gone", async () => {
    h = await harness();
    // A server that never answers `initialize`: claude waits for it (its own connect timeout is far
    // longer than the budget) before its init line, so the budget runs out during the start-up.
    const stuck = mcpStdio("stuck", process.execPath, { args: ["-e", "setInterval(() => {}, 1000)"], required: true });
    // 10 s: on a busy machine claude can take seconds to reach its MCP start-up at all.
    const stream = h.agent.stream("hello", { mcpServers: [stuck], policy: { activeExecutionTimeoutMs: 10_000 } });
    const events = await collect(stream);
    const error = await stream.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).reason).toBe("active_execution_timeout");
    expect((error as RunError).message).toBe("active execution budget of 10000 ms exhausted while starting MCP servers");
    const cause = (error as RunError).cause;
    expect(cause).toBeInstanceOf(DriverError);
    expect(cause).toMatchObject({ op: "mcp connect", device: "stuck" });
    expect((cause as Error).message).toMatch(
      /^\[DEVICE_DISCONNECTED\] mcp connect: stuck \(still starting when the run was stopped; then: /,
    );
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: false, reason: "active_execution_timeout" });
    const pid = spawnedPid(events);
    expect(pid).toBeDefined();
    expect(alive(pid ?? 0)).toBe(false);
  }, 120_000);

  it("the credentials the run hands claude (an HTTP server's header, a stdio server's token variable) are redacted in result.raw(), which still holds claude's answer to mcp_status", async () => {
    h = await harness();
    const fixture = mcpFixtureCommand();
    const header = "Bearer hdrSecret-QWERTY123456";
    const token = "stdioTok-ABCDEFGH12345";
    const stream = h.agent.stream("hello", {
      mcpServers: [
        mcpStdio("fixture", fixture.command, { args: fixture.args, env: { FIXTURE_API_TOKEN: token } }),
        mcpHttp("issues", `http://127.0.0.1:${await refusedLocalPort()}/mcp`, { headers: { authorization: header } }),
      ],
    });
    const events = await collect(stream);
    const result = await stream.result();
    // The HTTP server failed, so the driver asked claude for its error with `mcp_status`.
    expect(mcpStatus(events)?.find((server) => server.name === "issues")?.status).toBe("failed");
    const stdout = result.raw().stdout;
    const answer = stdout.split("\n").find((line) => line.includes('"request_id":"adaptor_mcp_status_'));
    expect(answer).toBeDefined();
    expect(JSON.parse(answer ?? "{}")).toMatchObject({
      response: {
        response: {
          mcpServers: expect.arrayContaining([
            expect.objectContaining({ name: "issues", config: expect.objectContaining({ headers: { authorization: "[redacted]" } }) }),
          ]),
        },
      },
    });
    const everything = JSON.stringify(events) + stdout + result.raw().stderr;
    expect(everything).not.toContain("hdrSecret-QWERTY123456");
    expect(everything).not.toContain(token);
  });

  it("a transport claude does not declare (sse) is refused before launch: ErrMCPTransportUnsupported, no process started", async () => {
    expect(CLAUDE_DESCRIPTOR.capabilities.mcp.transports).not.toContain("sse");
    // A command that would fail loudly (DriverError NOT_FOUND) if it were ever spawned.
    const agent = new Agent(claude({ command: join(work, "must-not-spawn"), inheritEnv: false }));
    const stream = agent.stream("hello", { mcpServers: [mcpStdio("local", "node"), mcpSse("legacy", "http://127.0.0.1:9/sse")] });
    const events = await collect(stream);
    const error = await stream.result().catch((e: unknown) => e);
    expect(isError(error, ErrMCPTransportUnsupported)).toBe(true);
    expect((error as Error).message).toBe(
      'MCP server "legacy": driver claude does not support transport sse (supported: ' +
        CLAUDE_DESCRIPTOR.capabilities.mcp.transports.join(", ") +
        ")",
    );
    expect(events.some((event) => event.type === "process")).toBe(false);
    await agent.close();
  });
});
