// The host-tool server is the gate, on the real claude binary (pinned 2.1.332): the CLI's argv names
// its `--mcp-config` file, which the run's own approved shell (the same OS user) can read, and so
// learn the server's URL and bearer token. A request made with it that is no call of the run's
// agent is refused, and every call of the agent passes the run's beforeToolCall hooks once.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type AgentEvent, type ToolCallHookInput } from "adaptor";
import { whenUserSays } from "@adaptor/testkit";
import { callThenReport, drainEvents, harness, spawnedPid, type Harness } from "./support.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

let dir: string;
let caller: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "host-tool-trust-"));
  caller = join(dir, "call-host-tool.cjs");
  // Reads the CLI's MCP config (the path given as argument, else the one in the argv of the
  // nearest claude ancestor) and POSTs a tools/call with its URL and bearer token.
  writeFileSync(
    caller,
    `const fs = require("fs");
const [tool, args, given] = [process.argv[2], JSON.parse(process.argv[3]), process.argv[4]];
const argv = (pid) => { try { return fs.readFileSync("/proc/" + pid + "/cmdline", "utf8").split("\\0"); } catch { return []; } };
const parent = (pid) => { const stat = fs.readFileSync("/proc/" + pid + "/stat", "utf8"); return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]); };
let file = given;
for (let pid = process.ppid; !file && pid > 1; pid = parent(pid)) {
  const a = argv(pid);
  const at = a.indexOf("--mcp-config");
  if (at !== -1) file = a[at + 1];
}
const server = JSON.parse(fs.readFileSync(file, "utf8")).mcpServers.adaptor;
fetch(server.url, {
  method: "POST",
  headers: { ...server.headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: tool, arguments: args } }),
}).then(async (r) => console.log("DIRECT " + r.status + " " + (await r.text())));
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A shell command the scripted model runs: call host tool `tool` with `args` through the server directly. */
function directCall(tool: string, args: Record<string, unknown>, configFile = ""): string {
  return `SHELL_CMD ${process.execPath} ${caller} ${tool} '${JSON.stringify(args)}' ${configFile}`.trimEnd();
}

function transferTool(ran: number[]) {
  return defineTool({
    name: "transfer",
    description: "Move money",
    input: z.object({ amount: z.number() }),
    handler: ({ amount }) => {
      ran.push(amount);
      return `transferred ${amount}`;
    },
  });
}

function shellOutput(events: readonly AgentEvent[]): string {
  return events.flatMap((e) => (e.type === "tool-result" && e.name === "Bash" ? [String(e.output)] : [])).join("\n");
}

const denyTransfer = (saw: ToolCallHookInput[]) => ({
  beforeToolCall: [
    {
      matcher: "mcp__adaptor__transfer",
      hook: (call: ToolCallHookInput) => {
        saw.push(call);
        return { deny: "transfer is never allowed" };
      },
    },
  ],
});

describe("host tools: the SDK's server is the gate (real claude binary)", () => {
  it("inherit: the run's approved shell POSTing tools/call transfer with the token from --mcp-config is refused; the handler never runs", async () => {
    const ran: number[] = [];
    const saw: ToolCallHookInput[] = [];
    h = await harness([], {}, { tools: [transferTool(ran)] });
    const stream = h.agent.stream(directCall("transfer", { amount: 1000 }), {
      policy: { approvals: { permission: "inherit" } },
      hooks: denyTransfer(saw),
      onApproval: (request) => (request.toolName === "Bash" ? request.approve() : request.deny("only the shell")),
    });
    const events = await drainEvents(stream);
    await stream.result();
    // The shell reached the server with the run's token: the request was answered, not refused at HTTP.
    expect(shellOutput(events)).toContain("DIRECT 200");
    expect(shellOutput(events)).toContain("permission_denied: this call was not made by the agent of this run");
    expect(ran).toEqual([]);
    expect(events.filter((e) => e.type === "notice" && e.kind === "host-tool.refused").map((e) => e.type === "notice" && e.data)).toEqual([
      { tool: "transfer" },
    ]);
    // No call of the agent: the hook had nothing to decide.
    expect(saw).toEqual([]);
  }, 90_000);

  it("the model's own call of the tool: beforeToolCall is called once (at the server, not again on the CLI's hook path) and its deny keeps the handler from running", async () => {
    const ran: number[] = [];
    const saw: ToolCallHookInput[] = [];
    h = await harness(callThenReport("CONTROL", "mcp__adaptor__transfer", { amount: 5 }), {}, { tools: [transferTool(ran)] });
    const stream = h.agent.stream("CONTROL call the tool", { hooks: denyTransfer(saw) });
    const events = await drainEvents(stream);
    const result = await stream.result();
    const call = events.find((e) => e.type === "tool-call" && e.name === "mcp__adaptor__transfer");
    expect(ran).toEqual([]);
    expect(saw).toEqual([
      {
        toolCallId: call?.type === "tool-call" ? call.id : "no tool-call event",
        toolName: "transfer",
        agentToolName: "mcp__adaptor__transfer",
        input: { amount: 5 },
      },
    ]);
    expect(result.text.split("\n")[0]).toBe("mcp__adaptor__transfer error: transfer is never allowed");
  }, 90_000);

  it("cross-run: run A's shell calling whoami with run B's token (read from B's --mcp-config) is refused; B's handler never runs", async () => {
    const calls: string[] = [];
    const whoami = defineTool({
      name: "whoami",
      description: "Acts for the current user",
      input: { type: "object" },
      handler: (_input, context) => {
        calls.push(context.runId);
        return `acting in run ${context.runId}`;
      },
    });
    h = await harness([{ when: whenUserSays("USER B"), reply: { text: "B answers", delayMs: 60_000 } }], {}, { tools: [whoami] });
    const agent = h.agent;
    const policy = { approvals: { permission: "auto_approve" as const } };
    const streamB = agent.stream("USER B waits", { policy });
    const eventsB: AgentEvent[] = [];
    let bSpawned!: (pid: number) => void;
    const pidOfB = new Promise<number>((resolve) => (bSpawned = resolve));
    const drainedB = (async () => {
      for await (const event of streamB) {
        eventsB.push(event);
        const pid = spawnedPid([event]);
        if (pid !== undefined) bSpawned(pid);
      }
    })();
    const cmdline = readFileSync(`/proc/${await pidOfB}/cmdline`, "utf8").split("\0");
    const configOfB = cmdline[cmdline.indexOf("--mcp-config") + 1] ?? "";
    expect(configOfB).not.toBe("");
    const streamA = agent.stream(directCall("whoami", {}, configOfB), { policy });
    const eventsA = await drainEvents(streamA);
    await streamA.result();
    expect(shellOutput(eventsA)).toContain("DIRECT 200");
    expect(shellOutput(eventsA)).toContain("permission_denied: this call was not made by the agent of this run");
    expect(calls).toEqual([]);
    streamB.cancel();
    await drainedB;
    await streamB.result().catch(() => undefined);
    expect(eventsB.filter((e) => e.type === "notice" && e.kind === "host-tool.refused").map((e) => e.type === "notice" && e.data)).toEqual([
      { tool: "whoami" },
    ]);
  }, 120_000);
});
