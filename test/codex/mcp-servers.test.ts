import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { whenPromptSays, type ResponsesScriptRule } from "@adaptor/testkit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { mcpFixtureCommand, readMcpFixtureLog } from "@adaptor/testkit/mcp-fixtures";
import { SAFE_ENV_BASE, STDIO_SERVER_VAR } from "@adaptor/driver/process";
import {
  Agent,
  defineTool,
  DriverError,
  ErrCode,
  ErrMCPUnsupported,
  findError,
  isError,
  isNotice,
  mcpStdio,
  PolicyCapabilityUnsupportedError,
  type AgentEvent,
  type RunOptions,
} from "adaptor";
import { alive, codexHarness, type CodexHarness } from "./support.js";
import { drain } from "../support/turn-events.js";
import { prewarmTurn } from "../support/prewarm.js";

// MCP servers and host tools on the codex app-server, on the real binary: the servers go in the
// thread's config (`thread/start` `config.mcp_servers`, over stdin), codex's ask before an MCP tool
// call (`mcpServer/elicitation/request`, approval policy `untrusted`) goes to the host, host tools
// pass the SDK's own approval gate.

/** The model calls the fixture's `echo` (codex offers a server's tools as the namespace `mcp__<server>`). */
const CALL_ECHO: ResponsesScriptRule = {
  when: whenPromptSays("CALL_ECHO"),
  reply: { functionCall: { name: "echo", namespace: "mcp__fixture", arguments: { text: "ping" } } },
};
const CALL_LOOKUP: ResponsesScriptRule = {
  when: whenPromptSays("LOOKUP"),
  reply: { functionCall: { name: "lookup", namespace: "mcp__adaptor", arguments: { word: "codex" } } },
};

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function fixture(root: string, options: { failStart?: boolean } = {}) {
  const logFile = join(root, "mcp.log");
  const command = mcpFixtureCommand({ logFile, ...options });
  return { logFile, command };
}

/** The files below `dir` whose content holds `text` (grep exits 1 when none does). */
function filesHolding(text: string, dir: string): string[] {
  const grep = spawnSync("grep", ["-rl", text, dir], { encoding: "utf8" });
  if (grep.status !== 0 && grep.status !== 1) throw new Error(`grep failed: ${grep.stderr}`);
  return grep.stdout.split("\n").filter(Boolean);
}

/** The last tool output the model received. */
function lastToolOutput(harness: CodexHarness): string {
  return String(harness.server.responses().at(-1)?.view.lastToolOutput?.output ?? "");
}

describe("codex app-server: MCP servers", () => {
  it("auto_approve, sandbox unrestricted: a stdio server's tool runs unasked and its result reaches the model; its env stays out of argv; the server ends with the run", async () => {
    h = await codexHarness({ rules: [CALL_ECHO] });
    const { logFile, command } = fixture(h.env.root);
    const agent = new Agent(h.driver, { policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve" } } });
    const stream = agent.stream("CALL_ECHO please", {
      mcpServers: [mcpStdio("fixture", command.command, { args: command.args, env: { FIXTURE_SECRET: "s3cret-value" } })],
    });
    let argv = "";
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "process" && event.kind === "spawn") argv = readFileSync(`/proc/${event.pid}/cmdline`, "utf8");
    }
    const result = await stream.result();
    await agent.close();
    expect(lastToolOutput(h)).toContain("echo: ping (MCP_FIXTURE_OK)");
    expect(result.text).toContain("MCP_FIXTURE_OK");
    expect(events.some((e) => e.type === "tool-call" && e.name === "mcp__fixture__echo")).toBe(true);
    expect(argv).toContain("app-server");
    expect(argv).not.toContain("s3cret-value");
    // Nor in any file codex wrote (config, rollout, state).
    expect(filesHolding("s3cret-value", h.env.codexHome)).toEqual([]);
    const log = await readMcpFixtureLog(logFile);
    expect(log.filter((entry) => entry.event === "call").map((entry) => entry.text)).toEqual(["ping"]);
    expect(events.some((e) => e.type === "notice" && e.kind === "mcp.status")).toBe(true);
    const started = log.filter((entry) => entry.event === "start");
    expect(started.length).toBeGreaterThan(0);
    expect(started.every((entry) => !alive(entry.pid))).toBe(true);
  });

  it("mcp.status: a server that starts and one that fails read connected / failed, the vocabulary of every driver, with codex's own words and the failure's error", async () => {
    h = await codexHarness({ rules: [] });
    const good = fixture(h.env.root).command;
    const bad = mcpFixtureCommand({ failStart: true });
    const agent = new Agent(h.driver);
    const stream = agent.stream("hello", {
      mcpServers: [mcpStdio("good", good.command, { args: good.args }), mcpStdio("bad", bad.command, { args: bad.args })],
    });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    await stream.result();
    await agent.close();
    const notices = events.filter((event) => isNotice(event, "mcp.status"));
    expect(notices).toHaveLength(1);
    const servers = notices[0] && isNotice(notices[0], "mcp.status") ? notices[0].data?.servers : undefined;
    expect(servers?.map(({ name, status, cliStatus }) => ({ name, status, cliStatus }))).toEqual([
      { name: "good", status: "connected", cliStatus: "ready" },
      { name: "bad", status: "failed", cliStatus: "failed" },
    ]);
    expect(servers?.[0]?.error).toBeUndefined();
    expect(servers?.[1]?.error).toContain("MCP client for `bad` failed to start");
  });

  // codex 0.171.0 passes a stdio server variables of its own environment besides the server's
  // `env`; the driver's `/usr/bin/env -u …` wrapper unsets every name of codex's environment the
  // server does not inherit, so none of them reaches it. The server logs its environment.
  it.each([
    [false, false],
    [false, true],
    [undefined, false],
    [undefined, true],
  ] as const)(
    "a stdio server with inheritEnv %s (the driver's inheritEnv %s) sees its declared env, the stdio-server marker and only the inherited part of codex's environment",
    async (inheritEnv, driverInherits) => {
      h = await codexHarness({ rules: [CALL_ECHO], config: { inheritEnv: driverInherits } });
      const logFile = join(h.env.root, "mcp.log");
      const command = mcpFixtureCommand({ logFile, logEnv: true });
      const agent = new Agent(h.driver, { policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve" } } });
      const result = await agent.run("CALL_ECHO please", {
        env: { HOST_SECRET: "not-for-servers" },
        mcpServers: [
          mcpStdio("fixture", command.command, {
            args: command.args,
            env: { DECLARED: "yes" },
            ...(inheritEnv !== undefined ? { inheritEnv } : {}),
          }),
        ],
      });
      expect(result.text).toContain("MCP_FIXTURE_OK");
      await agent.close();
      // The environment of the server process that answered the call, as it logged it.
      const env = (await readMcpFixtureLog(logFile)).find((entry) => entry.event === "call")!.env!;
      const names = Object.keys(env);
      expect(env).toMatchObject({ [STDIO_SERVER_VAR]: "1", DECLARED: "yes" });
      if (inheritEnv === false) expect(names.sort()).toEqual([STDIO_SERVER_VAR, "DECLARED"].sort());
      else {
        // The safe base only: never the run's own variables, nor codex's credentials or home.
        const extra = names.filter((name) => name !== STDIO_SERVER_VAR && name !== "DECLARED");
        expect(
          extra.filter((name) => !SAFE_ENV_BASE.some((safe) => (safe.endsWith("*") ? name.startsWith(safe.slice(0, -1)) : name === safe))),
        ).toEqual([]);
        expect(extra).toContain("PATH");
      }
      expect(names).not.toContain("HOST_SECRET");
      expect(names).not.toContain("CODEX_HOME");
    },
  );

  it("a required server that cannot start fails the run: DEVICE_DISCONNECTED, op mcp connect, the server named", async () => {
    h = await codexHarness({ rules: [CALL_ECHO] });
    const { command } = fixture(h.env.root, { failStart: true });
    const agent = new Agent(h.driver);
    const failed = await agent
      .run("CALL_ECHO please", { mcpServers: [mcpStdio("fixture", command.command, { args: command.args, required: true })] })
      .catch((e: unknown) => e);
    await agent.close();
    const error = findError(failed, DriverError);
    expect(error).toMatchObject({ code: ErrCode.DeviceDisconnected, op: "mcp connect", device: "fixture" });
    expect(h.server.responses()).toEqual([]);
  });

  it("a stdio server whose command does not exist: its mcp.status error says so, not codex's closed connection; a required one is refused before codex starts", async () => {
    h = await codexHarness({ rules: [] });
    const agent = new Agent(h.driver);
    const stream = agent.stream("hello", { mcpServers: [mcpStdio("ghost", "/nonexistent/mcp-server-xyz")] });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    await stream.result();
    const notices = events.filter((event) => isNotice(event, "mcp.status"));
    expect(notices.map((notice) => (isNotice(notice, "mcp.status") ? notice.data?.servers : undefined))).toEqual([
      [{ name: "ghost", status: "failed", cliStatus: "failed", error: "command not found: /nonexistent/mcp-server-xyz" }],
    ]);

    const required = agent.stream("hello", { mcpServers: [mcpStdio("ghost", "no-such-mcp-server-xyz", { required: true })] });
    const refusedEvents: AgentEvent[] = [];
    for await (const event of required) refusedEvents.push(event);
    const refused = await required.result().catch((e: unknown) => e);
    await agent.close();
    expect(findError(refused, DriverError)).toMatchObject({ code: ErrCode.DeviceDisconnected, op: "mcp connect", device: "ghost" });
    expect((refused as Error).message).toBe("[DEVICE_DISCONNECTED] mcp connect: ghost (command not found: no-such-mcp-server-xyz)");
    expect(refusedEvents.some((event) => event.type === "process")).toBe(false);
  });

  it("permission ask: codex's ask before the MCP tool call reaches the host; approved it runs, denied it does not; approval, event and hook name the tool mcp__<server>__<tool>", async () => {
    h = await codexHarness({ rules: [CALL_ECHO] });
    const { logFile, command } = fixture(h.env.root);
    const agent = new Agent(h.driver, { policy: { sandbox: "unrestricted", approvals: { permission: "ask" } } });
    const servers = [mcpStdio("fixture", command.command, { args: command.args })];
    const asked: (string | undefined)[] = [];
    const hooked: string[] = [];
    const approved = await agent.run("CALL_ECHO please", {
      mcpServers: servers,
      onApproval: (request) => {
        asked.push(request.toolName);
        request.approve();
      },
      hooks: { afterToolCall: (call) => void hooked.push(call.toolName, call.agentToolName) },
    });
    expect(asked).toEqual(["mcp__fixture__echo"]);
    // One concept, one name, as on Claude Code: the event (and transcript) and the hook say what the approval said.
    expect(approved.transcript().flatMap((item) => (item.kind === "tool-call" ? [item.toolName] : []))).toEqual(["mcp__fixture__echo"]);
    expect(hooked).toEqual(["mcp__fixture__echo", "mcp__fixture__echo"]);
    expect(lastToolOutput(h)).toContain("MCP_FIXTURE_OK");
    await agent.run("CALL_ECHO again", {
      mcpServers: servers,
      onApproval: (request) => {
        asked.push(request.toolName);
        request.deny("not now");
      },
    });
    await agent.close();
    expect(asked).toEqual(["mcp__fixture__echo", "mcp__fixture__echo"]);
    // The model reads codex's rejection and the host's reason (a developer message).
    const body = JSON.stringify(h.server.responses().at(-1)?.body);
    expect(body).toContain("user rejected MCP tool call");
    expect(body).toContain("The host denied mcp__fixture__echo");
    expect(body).toContain("not now");
    expect((await readMcpFixtureLog(logFile)).filter((entry) => entry.event === "call")).toHaveLength(1);
  });

  it("permission auto_deny: the MCP tool call is denied without asking the host; the sandbox read_only is enforced", async () => {
    h = await codexHarness({ rules: [CALL_ECHO] });
    const { logFile, command } = fixture(h.env.root);
    const agent = new Agent(h.driver, { policy: { sandbox: "read_only", approvals: { permission: "auto_deny" } } });
    const asked: string[] = [];
    const result = await agent.run("CALL_ECHO please", {
      mcpServers: [mcpStdio("fixture", command.command, { args: command.args })],
      onApproval: (request) => {
        asked.push(String(request.toolName));
        request.approve();
      },
    });
    await agent.close();
    expect(asked).toEqual([]);
    expect(JSON.stringify(h.server.responses().at(-1)?.body)).toContain("user rejected MCP tool call");
    expect((await readMcpFixtureLog(logFile)).filter((entry) => entry.event === "call")).toEqual([]);
    expect(result.enforcement?.find((entry) => entry.field === "sandbox")?.enforced).toBe(true);
    // The refused call, under the id of its tool-call event (codex's ask names none).
    const call = result.transcript().find((item) => item.kind === "tool-call");
    expect(call?.toolCallId).toEqual(expect.any(String));
    expect(result.permissionDenials).toEqual([{ toolName: "mcp__fixture__echo", toolCallId: call?.toolCallId, input: { text: "ping" } }]);
  });

  it.each(["ask", "auto_deny"] as const)(
    "permission %s: a tool its server annotates read-only is asked (or denied) like any other, never run unasked",
    async (permission) => {
      h = await codexHarness({
        rules: [
          {
            when: whenPromptSays("CALL_PEEK"),
            reply: { functionCall: { name: "peek", namespace: "mcp__fixture", arguments: { text: "x" } } },
          },
        ],
      });
      const { logFile, command } = fixture(h.env.root);
      const agent = new Agent(h.driver, { policy: { sandbox: "unrestricted", approvals: { permission } } });
      const asked: string[] = [];
      await agent.run("CALL_PEEK please", {
        mcpServers: [mcpStdio("fixture", command.command, { args: command.args })],
        onApproval: (request) => {
          asked.push(String(request.toolName));
          request.deny("no");
        },
      });
      await agent.close();
      expect(asked).toEqual(permission === "ask" ? ["mcp__fixture__peek"] : []);
      expect(JSON.stringify(h.server.responses().at(-1)?.body)).toContain("user rejected MCP tool call");
      expect((await readMcpFixtureLog(logFile)).filter((entry) => entry.event === "call")).toEqual([]);
    },
  );

  it.each([
    ["permission unset", undefined, false],
    ["auto_approve", "auto_approve", false],
    ["inherit", "inherit", false],
    ["auto_approve and bestEffortPolicy", "auto_approve", true],
  ] as const)(
    "sandbox read_only with an MCP server and %s: refused before launch (codex would refuse every MCP tool call)",
    async (_label, permission, bestEffortPolicy) => {
      await using agent = new Agent((await codexHarnessFor({ bestEffortPolicy })).driver, {
        policy: { sandbox: "read_only", ...(permission ? { approvals: { permission } } : {}) },
      });
      const refused = await agent.run("CALL_ECHO", { mcpServers: [mcpStdio("fixture", "/nonexistent/server")] }).catch((e: unknown) => e);
      expect(findError(refused, PolicyCapabilityUnsupportedError)).toMatchObject({ dimension: "sandbox" });
      expect(h?.server.responses()).toEqual([]);
    },
  );

  it("exec transport: MCP servers are refused before launch (ErrMCPUnsupported)", async () => {
    await using agent = new Agent((await codexHarnessFor({ transport: "exec" })).driver);
    const refused = await agent.run("hi", { mcpServers: [mcpStdio("fixture", "/nonexistent/server")] }).catch((e: unknown) => e);
    expect(isError(refused, ErrMCPUnsupported)).toBe(true);
    expect(h?.server.responses()).toEqual([]);
  });
});

describe("codex app-server: MCP servers on resumed, forked and pre-warmed runs", { timeout: 180_000 }, () => {
  const policy = { sandbox: "unrestricted", approvals: { permission: "auto_approve" } } as const;
  /** An Agent on a thread store, the fixture server declared for the run that calls it, its log. */
  async function setUp() {
    h = await codexHarness({ rules: [CALL_ECHO] });
    const { logFile, command } = fixture(h.env.root);
    const agent = new Agent(h.driver, { threadStore: new MemoryThreadStore(), policy });
    const servers = [mcpStdio("fixture", command.command, { args: command.args })];
    const calls = async () => (await readMcpFixtureLog(logFile)).filter((entry) => entry.event === "call").map((entry) => entry.text);
    return { agent, servers, calls };
  }

  it.each([
    [
      "a thread turn resumed in a new process (thread/resume)",
      (agent: Agent, options: RunOptions) => agent.thread("parent").run("CALL_ECHO please", { ...options, spawn: true }),
    ],
    [
      "a fork's first turn (thread/fork)",
      (agent: Agent, options: RunOptions) => agent.thread("parent").fork("child").run("CALL_ECHO please", options),
    ],
  ])("%s reaches a server declared on it (the thread's first turn had none)", async (_, next) => {
    const { agent, servers, calls } = await setUp();
    try {
      await agent.thread("parent").run("first turn");
      const result = await next(agent, { mcpServers: servers });
      expect(result.text).toContain("MCP_FIXTURE_OK");
      // The same conversation, continued: not a new thread.
      expect(h!.server.responses().at(-1)!.view.userTexts).toEqual(["first turn", "CALL_ECHO please"]);
      expect(await calls()).toEqual(["ping"]);
    } finally {
      await agent.close();
    }
  });

  it("a process pre-warmed with a server serves the first turn that declares it, and the server answers there", async () => {
    const { agent, servers, calls } = await setUp();
    try {
      expect(await agent.prewarm({ mcpServers: servers })).toBe(1);
      const turn = await prewarmTurn(agent.stream("CALL_ECHO please", { mcpServers: servers }));
      expect(turn).toMatchObject({ spawned: false, prewarmedPid: expect.any(Number) });
      expect(turn.text).toContain("MCP_FIXTURE_OK");
      expect(await calls()).toEqual(["ping"]);
    } finally {
      await agent.close();
    }
  });
});

describe("codex app-server: host tools (defineTool)", () => {
  const calls: string[] = [];
  const lookup = defineTool({
    name: "lookup",
    description: "Looks up a word",
    input: z.object({ word: z.string() }),
    handler: ({ word }) => {
      calls.push(word);
      return `meaning of ${word}`;
    },
  });
  afterEach(() => {
    calls.length = 0;
  });

  it("permission ask: the call is asked on the host's own path once; approved, its value reaches the model", async () => {
    h = await codexHarness({ rules: [CALL_LOOKUP] });
    const agent = new Agent(h.driver, { tools: [lookup], policy: { sandbox: "unrestricted", approvals: { permission: "ask" } } });
    const asked: [string | undefined, unknown][] = [];
    const stream = agent.stream("LOOKUP please", {
      onApproval: (request) => {
        asked.push([request.toolName, request.input]);
        request.approve();
      },
    });
    await drain(stream);
    const result = await stream.result();
    await agent.close();
    expect(asked).toEqual([["lookup", { word: "codex" }]]);
    expect(calls).toEqual(["codex"]);
    expect(lastToolOutput(h)).toContain("meaning of codex");
    expect(result.text).toContain("meaning of codex");
  });

  it("permission ask, denied on the host: the handler does not run and the model reads the denial", async () => {
    h = await codexHarness({ rules: [CALL_LOOKUP] });
    const agent = new Agent(h.driver, { tools: [lookup], policy: { sandbox: "unrestricted", approvals: { permission: "ask" } } });
    await agent.run("LOOKUP please", { onApproval: (request) => request.deny("words are off limits") });
    await agent.close();
    expect(calls).toEqual([]);
    expect(lastToolOutput(h)).toContain("permission_denied: words are off limits");
  });

  it("permission ask: the approval, the host's tool-result (the call's one result) and the denial carry the tool-call's id (codex's callId); the denial names mcp__adaptor__lookup", async () => {
    h = await codexHarness({ rules: [CALL_LOOKUP] });
    const agent = new Agent(h.driver, { tools: [lookup], policy: { sandbox: "unrestricted", approvals: { permission: "ask" } } });
    const stream = agent.stream("LOOKUP please", { onApproval: (request) => request.deny("words are off limits") });
    const events = await drain(stream);
    const result = await stream.result();
    await agent.close();
    const call = events.find((e) => e.type === "tool-call" && e.phase === "start");
    expect(call).toMatchObject({ name: "mcp__adaptor__lookup", id: expect.stringMatching(/^call_/) });
    const id = call?.type === "tool-call" ? call.id : "no tool-call";
    const approvals = events.flatMap((e) => (e.type === "approval-request" ? [[e.request.toolName, e.request.toolCallId]] : []));
    expect(approvals).toEqual([["lookup", id]]);
    // One result: the host's; codex's own result of the call is folded into it.
    const results = events.flatMap((e) => (e.type === "tool-result" ? [[e.name, e.id]] : []));
    expect(results).toEqual([["lookup", id]]);
    expect(result.permissionDenials).toEqual([{ toolName: "mcp__adaptor__lookup", toolCallId: id, input: { word: "codex" } }]);
  });

  it("a thread's second turn reuses the parked process with the same host-tool server, and its tool still answers", async () => {
    h = await codexHarness({ rules: [CALL_LOOKUP] });
    const agent = new Agent(h.driver, { tools: [lookup], threadStore: new MemoryThreadStore() });
    const thread = agent.thread("tools");
    await thread.run("LOOKUP once");
    const stream = thread.stream("LOOKUP twice");
    const events = await drain(stream);
    await stream.result();
    await agent.close();
    expect(events.some((e) => e.type === "notice" && e.message === "process reused")).toBe(true);
    expect(calls).toEqual(["codex", "codex"]);
  });

  it("sandbox read_only with permission unset: host tools run (they are the host's own code), the sandbox reported enforced", async () => {
    h = await codexHarness({ rules: [CALL_LOOKUP] });
    const agent = new Agent(h.driver, { tools: [lookup], policy: { sandbox: "read_only" } });
    const result = await agent.run("LOOKUP please");
    await agent.close();
    expect(calls).toEqual(["codex"]);
    expect(result.enforcement?.find((entry) => entry.field === "sandbox")?.enforced).toBe(true);
  });
});

/** A harness for a refusal test (no model request is expected). */
async function codexHarnessFor(config: { transport?: "exec"; bestEffortPolicy?: boolean } = {}): Promise<CodexHarness> {
  h = await codexHarness({ config });
  return h;
}
