import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { whenUserSays, type AnthropicServer } from "@adaptor/testkit";
import { mcpFixtureCommand } from "@adaptor/testkit/mcp-fixtures";
import { ErrAgentFailed, RunError, isError, mcpStdio } from "adaptor";
import {
  expectCancelLeavesNothing,
  threeTurns,
  claudeAcpHarness,
  collect,
  spawnedPids,
  type AdapterHarness,
  streamedText,
} from "./support.js";

// Claude Code through its ACP adapter (@zed-industries/claude-code-acp 0.16.2, which runs Claude Code
// through the Claude Agent SDK) against the testkit's scripted Anthropic server on 127.0.0.1.

let h: AdapterHarness<AnthropicServer> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const bodies = (server: AnthropicServer): string[] =>
  server.requests.filter((r) => r.path === "/v1/messages").map((r) => JSON.stringify(r.body));

describe("claude-code-acp on the real adapter", () => {
  it("text turn: deltas, the final text and a session checkpoint", async () => {
    h = await claudeAcpHarness([{ when: whenUserSays("say hello"), reply: { text: "Hello from the scripted model." } }]);
    const stream = h.agent.stream("please say hello");
    const events = await collect(stream);
    const result = await stream.result();
    expect(result.text).toBe("Hello from the scripted model.");
    expect(streamedText(events)).toBe(result.text);
    expect(result.transcript().some((item) => item.kind === "assistant" && item.text === result.text)).toBe(true);
  });

  it("tool approved: Write is asked about once, runs, and its result reaches the model", async () => {
    h = await claudeAcpHarness();
    const file = join(h.env.workDir, "approved.txt");
    const asked: string[] = [];
    const result = await h.agent.run(`WRITE_FILE ${file}`, {
      onApproval: (request) => {
        asked.push(`${request.kind}:${request.toolName}`);
        expect(request.input).toMatchObject({ file_path: file });
        request.approve();
      },
    });
    expect(asked).toEqual(["permission:Write"]);
    expect(existsSync(file)).toBe(true);
    expect(h.server.requests.at(-1)?.view.lastToolResult).toMatchObject({ toolName: "Write", isError: false });
    expect(result.text).toMatch(/^Done: /);
  });

  it("tool denied: nothing is written; the adapter ends the turn and the model sees the refusal on the next turn", async () => {
    h = await claudeAcpHarness();
    const file = join(h.env.workDir, "denied.txt");
    const thread = h.agent.thread("denial");
    const stream = thread.stream(`WRITE_FILE ${file}`, { onApproval: (request) => request.deny("not today") });
    const events = await collect(stream);
    await stream.result();
    expect(existsSync(file)).toBe(false);
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ name: "Write", isError: true });
    await thread.run("what happened?");
    const refusal = h.server.requests.find((r) => r.view.lastToolResult?.toolName === "Write")?.view.lastToolResult;
    expect(refusal).toMatchObject({ isError: true });
    expect(refusal?.content).toContain("User refused permission");
  });

  it("cancel mid-turn: session/cancel, then no process is left; the verdict is the abort", async () => {
    h = await claudeAcpHarness([{ when: whenUserSays("slow"), reply: { text: "too late", delayMs: 30_000 } }]);
    await expectCancelLeavesNothing(h.agent, "slow one", h.env.home);
  });

  it("MCP server: the model calls the stdio fixture's tool and its result comes back", async () => {
    const fixture = mcpFixtureCommand();
    h = await claudeAcpHarness([
      { when: whenUserSays("CALL_ECHO"), reply: { toolUse: { name: "mcp__fixture__echo", input: { text: "ping" } } } },
    ]);
    const result = await h.agent.run("CALL_ECHO please", {
      mcpServers: [mcpStdio("fixture", fixture.command, { args: fixture.args })],
      onApproval: (request) => request.approve(),
    });
    expect(h.server.requests.some((r) => r.view.toolNames.includes("mcp__fixture__echo"))).toBe(true);
    expect(h.server.requests.at(-1)?.view.lastToolResult?.content).toContain("echo: ping (MCP_FIXTURE_OK)");
    expect(result.text).toContain("MCP_FIXTURE_OK");
  });

  it("three-turn thread: one process serves every turn and the model sees the whole history", async () => {
    h = await claudeAcpHarness();
    expect(await threeTurns(h.agent)).toHaveLength(1);
    const last = bodies(h.server).at(-1) ?? "";
    for (const prompt of ["first turn", "second turn", "third turn"]) expect(last).toContain(prompt);
  });

  it("a thread continues in a new process through session/load", async () => {
    h = await claudeAcpHarness();
    const thread = h.agent.thread("loaded");
    await thread.run("first turn");
    const stream = thread.stream("second turn", { spawn: true });
    const events = await collect(stream);
    const result = await stream.result();
    expect(spawnedPids(events)).toHaveLength(1);
    expect(events.some((e) => e.type === "notice" && e.message === "session loaded")).toBe(true);
    // The history session/load replays is not this turn's output: only the new answer streams.
    const replayed = events.find((e) => e.type === "notice" && e.data?.["replayed"] !== undefined);
    expect(replayed?.type === "notice" ? replayed.data?.["replayed"] : 0).toBeGreaterThan(0);
    const streamed = events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");
    expect(streamed).toBe(result.text);
    expect(result.transcript().filter((item) => item.kind === "user")).toEqual([{ kind: "user", text: "second turn" }]);
    const last = bodies(h.server).at(-1) ?? "";
    expect(last).toContain("first turn");
    expect(last).toContain("second turn");
  });

  it("thread.fork() continues the parent's history in a new session through session/fork", async () => {
    h = await claudeAcpHarness();
    const parent = h.agent.thread("parent");
    await parent.run("parent turn");
    const stream = parent.fork("child").stream("child turn");
    const events = await collect(stream);
    const result = await stream.result();
    expect(events.some((e) => e.type === "notice" && e.message === "session forked")).toBe(true);
    const last = bodies(h.server).at(-1) ?? "";
    expect(last).toContain("parent turn");
    expect(last).toContain("child turn");
    expect(result.text).toMatch(/Fake reply/);
  });

  it("HTTP 400 from the model: RunError agent_error with the API's message and status", async () => {
    h = await claudeAcpHarness([{ when: whenUserSays("fail please"), reply: { error: { status: 400, message: "scripted bad request" } } }]);
    const err = await h.agent.run("fail please").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect(isError(err, ErrAgentFailed)).toBe(true);
    expect((err as RunError).message).toContain("scripted bad request");
    expect((err as RunError).details).toMatchObject({ apiErrorStatus: 400 });
  });
});
