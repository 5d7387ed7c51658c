// The `read_only` sandbox on the real claude binary (pinned 2.1.332) fails closed: only tools known
// to only read run; every other tool (a built-in one the driver does not list, a new one, an MCP
// server's) does not run, even with a host that approves everything it is asked.
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { mcpFixtureCommand, readMcpFixtureLog } from "@adaptor/testkit/mcp-fixtures";
import { z } from "zod";
import { defineTool, mcpStdio, type AgentEvent } from "adaptor";
import { callThenReport, harness, type Harness } from "./support.js";

let h: Harness | undefined;
let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "claude-read-only-"));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await rm(work, { recursive: true, force: true });
});

const READ_ONLY = { policy: { sandbox: "read_only" as const, approvals: { permission: "ask" as const } } };

async function drain(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("claude read_only fails closed (real binary)", () => {
  it.each([
    ["Bash (background)", "Bash", (f: string) => ({ command: `echo x > ${f}`, description: "write", run_in_background: true })],
    ["NotebookEdit", "NotebookEdit", (f: string) => ({ notebook_path: f, new_source: "print(1)", cell_type: "code", edit_mode: "insert" })],
  ])("%s does not run, though the host approves every ask", async (_name, tool, input) => {
    const file = join(work, "must-not-exist.ipynb");
    h = await harness(callThenReport("RUN_TOOL", tool, input(file)), {}, { onApproval: (r) => r.approve() });
    const stream = h.agent.stream("RUN_TOOL", READ_ONLY);
    await drain(stream);
    const result = await stream.result();
    // Give a background command time to write (it would within milliseconds).
    await new Promise((r) => setTimeout(r, 2000));
    expect(existsSync(file)).toBe(false);
    expect(result.text).toMatch(new RegExp(`^${tool} error: `));
  });

  it.each([false, true])(
    "an MCP server's tool (not the host's own) does not run, though the host approves every ask (askForEveryTool %s)",
    async (askForEveryTool) => {
      const log = join(work, "fixture.jsonl");
      const asked: string[] = [];
      h = await harness(
        callThenReport("CALL_ECHO", "mcp__fixture__echo", { text: "ping" }),
        { askForEveryTool },
        {
          onApproval: (r) => {
            asked.push(r.title);
            r.approve();
          },
        },
      );
      const fixture = mcpFixtureCommand({ logFile: log });
      const result = await h.agent.run("CALL_ECHO", {
        ...READ_ONLY,
        mcpServers: [mcpStdio("fixture", fixture.command, { args: fixture.args })],
      });
      expect(result.text).toMatch(/^mcp__fixture__echo error: /);
      expect(asked).toEqual([]);
      const calls = (await readMcpFixtureLog(log)).filter((entry) => entry.event === "call");
      expect(calls).toEqual([]);
    },
  );

  it("with askForEveryTool, a read in the working directory is still asked about", async () => {
    const asked: string[] = [];
    let file = "";
    h = await harness(
      [
        { when: whenUserSays("READ_IT"), reply: () => ({ toolUse: { name: "Read", input: { file_path: file } } }) },
        { when: whenToolResult("Read"), reply: (view) => ({ text: `Read ${view.lastToolResult?.isError ? "error" : "ok"}` }) },
      ],
      { askForEveryTool: true },
      {
        onApproval: (r) => {
          asked.push(r.toolName ?? "");
          r.approve();
        },
      },
    );
    file = join(h.env.workDir, "asked.txt");
    await writeFile(file, "x\n");
    const result = await h.agent.run("READ_IT", READ_ONLY);
    expect(asked).toEqual(["Read"]);
    expect(result.text).toBe("Read ok");
  });

  it("only the read-only built-ins are offered: a built-in the driver does not list (Agent, Workflow, Edit...) is not", async () => {
    h = await harness();
    await h.agent.run("hello", READ_ONLY);
    const offered = new Set(h.server.requests.flatMap((request) => request.view.toolNames));
    // DeferredToolPlaceholder is the CLI's own never-called stand-in for tools loaded on demand.
    expect([...offered].sort()).toEqual(["DeferredToolPlaceholder", "Glob", "Grep", "Read", "ToolSearch"]);
    // Tools loaded on demand (ToolSearch) are only those of the list too.
    const text = JSON.stringify(h.server.requests.at(-1)?.body);
    for (const name of ["CronCreate", "Monitor", "NotebookEdit", "EnterWorktree", "Workflow", "WebFetch", "Skill"]) {
      expect(text).not.toContain(`"${name}"`);
    }
  });

  it("Read in the working directory still runs without asking", async () => {
    const asked: string[] = [];
    let file = "";
    h = await harness(
      [
        { when: whenUserSays("READ_IT"), reply: () => ({ toolUse: { name: "Read", input: { file_path: file } } }) },
        {
          when: whenToolResult("Read"),
          reply: (view) => ({ text: `Read ${view.lastToolResult?.isError ? "error" : "ok"}: ${view.lastToolResult?.content ?? ""}` }),
        },
      ],
      {},
      {
        onApproval: (r) => {
          asked.push(r.title);
          r.deny("not expected");
        },
      },
    );
    file = join(h.env.workDir, "notes.txt");
    await writeFile(file, "read-only-marker-42\n");
    const result = await h.agent.run("READ_IT", { policy: { sandbox: "read_only" } });
    expect(result.text).toMatch(/^Read ok: /);
    expect(result.text).toContain("read-only-marker-42");
    expect(asked).toEqual([]);
  });

  it("the host's own tools (the Agent's trusted MCP server) and structured output still work", async () => {
    const seen: string[] = [];
    const lookup = defineTool({
      name: "lookup",
      description: "Look a key up",
      input: z.object({ key: z.string() }),
      handler: ({ key }) => {
        seen.push(key);
        return { value: `v-${key}` };
      },
    });
    h = await harness(
      [
        { when: whenUserSays("LOOKUP"), reply: { toolUse: { name: "mcp__adaptor__lookup", input: { key: "k1" } } } },
        { when: whenToolResult("mcp__adaptor__lookup"), reply: { toolUse: { name: "StructuredOutput", input: { answer: "v-k1" } } } },
      ],
      {},
      { tools: [lookup], onApproval: (r) => r.deny("nothing should be asked") },
    );
    const result = await h.agent.run("LOOKUP", {
      policy: { sandbox: "read_only" },
      schemaJSON: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
    });
    expect(seen).toEqual(["k1"]);
    expect(result.structuredOutput).toMatchObject({ source: "native", valid: true });
    expect(result.decode()).toEqual({ answer: "v-k1" });
  });

  it("AskUserQuestion is not offered (the CLI's dontAsk mode would deny it): a question is refused without asking", async () => {
    const asked: string[] = [];
    h = await harness(
      callThenReport("ASK_ME", "AskUserQuestion", {
        questions: [
          {
            question: "Which one?",
            header: "Pick",
            multiSelect: false,
            options: [
              { label: "A", description: "a" },
              { label: "B", description: "b" },
            ],
          },
        ],
      }),
      {},
      {
        onApproval: (r) => {
          asked.push(r.kind);
          r.answer("B");
        },
      },
    );
    const result = await h.agent.run("ASK_ME", { policy: { sandbox: "read_only", approvals: { question: "ask" } } });
    expect(asked).toEqual([]);
    expect(result.text).toMatch(/^AskUserQuestion error: /);
  });
});
