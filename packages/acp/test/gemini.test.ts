import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GEMINI_WRITE_FILE_CONTENT, whenGeminiPromptSays } from "@adaptor/testkit";
import { mcpFixtureCommand } from "@adaptor/testkit/mcp-fixtures";
import { ErrAgentFailed, ErrMCPUnsupported, RunError, isError, mcpStdio } from "adaptor";
import { expectCancelLeavesNothing, threeTurns, collect, geminiHarness, type GeminiHarness, streamedText } from "./support.js";

// Real gemini-cli (pinned 0.61.0, `gemini --acp`) against the testkit's scripted Gemini API server on 127.0.0.1.

let h: GeminiHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("gemini over ACP on the real binary", () => {
  it("text turn: thinking and text deltas, the final text, usage and a session checkpoint", async () => {
    h = await geminiHarness();
    const stream = h.agent.stream("hello there THINK");
    const events = await collect(stream);
    const result = await stream.result();
    expect(result.text).toBe('Fake reply. I saw 1 content(s), 1 user prompt(s); first user text: "hello there THINK"');
    expect(streamedText(events)).toBe(result.text);
    expect(events.some((e) => e.type === "thinking-delta" && e.text.includes("Thinking about: hello there"))).toBe(true);
    expect(result.usage).toEqual({ inputTokens: 100, outputTokens: 10 });
    expect(result.model).toBe("gemini-2.5-flash");
    expect(h.server.turns().map((r) => r.path)).toEqual(["/v1beta/models/gemini-2.5-flash:streamGenerateContent"]);
    expect(result.transcript().some((item) => item.kind === "assistant" && item.text === result.text)).toBe(true);
  });

  it("no model set: gemini-cli asks its router model first, and the scripted server's answer picks the turn's model", async () => {
    h = await geminiHarness([], { model: undefined });
    const result = await h.agent.run("route me");
    expect(result.text).toContain('first user text: "route me"');
    const router = h.server.requests.find((r) => r.view.method === "generate" && r.view.responseSchema !== undefined);
    expect(router?.view.model).toMatch(/lite/);
    expect(h.server.turns()).toHaveLength(1);
    expect(h.server.turns()[0]?.view.model).not.toBe(router?.view.model);
  });

  it("tool approved: write_file is asked about once, runs, and its result reaches the model", async () => {
    h = await geminiHarness();
    const file = join(h.env.workDir, "approved.txt");
    const asked: string[] = [];
    const result = await h.agent.run(`WRITE_FILE ${file}`, {
      onApproval: (request) => {
        asked.push(`${request.kind}:${request.toolName}`);
        request.approve();
      },
    });
    expect(asked).toEqual(["permission:write_file"]);
    expect(readFileSync(file, "utf8")).toBe(GEMINI_WRITE_FILE_CONTENT);
    expect(h.server.turns().at(-1)?.view.lastFunctionResponse).toMatchObject({ name: "write_file", isError: false });
    expect(result.text).toMatch(/^Done: /);
  });

  it("tool denied: nothing is written and the model sees the refusal (ACP carries no deny reason)", async () => {
    h = await geminiHarness();
    const file = join(h.env.workDir, "denied.txt");
    const stream = h.agent.stream(`WRITE_FILE ${file}`, { onApproval: (request) => request.deny("not today") });
    const events = await collect(stream);
    const result = await stream.result();
    expect(existsSync(file)).toBe(false);
    const response = h.server.turns().at(-1)?.view.lastFunctionResponse;
    expect(response).toMatchObject({ name: "write_file", isError: true });
    expect(response?.output).toContain("canceled by the user");
    expect(result.text).toContain("canceled by the user");
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ name: "write_file", isError: true, output: "denied: not today" });
  });

  it("cancel mid-turn: session/cancel, then the process group is gone; the verdict is the abort", async () => {
    h = await geminiHarness([{ when: whenGeminiPromptSays("slow"), reply: { text: "too late", delayMs: 30_000 } }]);
    await expectCancelLeavesNothing(h.agent, "slow one", h.env.home);
  });

  it("MCP server (with workspaceSettings: untrusted, gemini-cli drops every server): the model calls the stdio fixture's tool and its result comes back; required, it is found running after the turn", async () => {
    const fixture = mcpFixtureCommand();
    h = await geminiHarness(
      [
        {
          when: whenGeminiPromptSays("CALL_ECHO"),
          reply: (view) => ({
            functionCall: { name: view.toolNames.find((name) => name.includes("echo")) ?? "missing_echo", args: { text: "ping" } },
          }),
        },
      ],
      { workspaceSettings: true },
    );
    const result = await h.agent.run("CALL_ECHO please", {
      mcpServers: [mcpStdio("fixture", fixture.command, { args: fixture.args, required: true })],
      onApproval: (request) => request.approve(),
    });
    const offered = h.server.turns()[0]?.view.toolNames ?? [];
    expect(offered.some((name) => name.includes("echo"))).toBe(true);
    expect(h.server.turns().at(-1)?.view.lastFunctionResponse?.output).toContain("echo: ping (MCP_FIXTURE_OK)");
    expect(result.text).toContain("MCP_FIXTURE_OK");
  });

  it("MCP servers in an untrusted folder (the default) are refused before launch, not dropped", async () => {
    const fixture = mcpFixtureCommand();
    h = await geminiHarness();
    const error = await h.agent
      .run("CALL_ECHO please", { mcpServers: [mcpStdio("fixture", fixture.command, { args: fixture.args })] })
      .catch((e: unknown) => e);
    expect(isError(error, ErrMCPUnsupported)).toBe(true);
    expect(h.server.turns()).toHaveLength(0);
  });

  it("three-turn thread: one process serves every turn and the model sees the whole history", async () => {
    h = await geminiHarness();
    expect(await threeTurns(h.agent)).toHaveLength(1);
    const last = h.server.turns().at(-1)?.view;
    expect(last?.userTexts.slice(-3)).toEqual(["first turn", "second turn", "third turn"]);
  });

  it("agent.prewarm(): the first turn takes the pre-warmed, initialized process", async () => {
    h = await geminiHarness();
    expect(await h.agent.prewarm()).toBe(1);
    const stream = h.agent.stream("hello after prewarm");
    const events = await collect(stream);
    await stream.result();
    expect(events.filter((e) => e.type === "process" && e.kind === "spawn")).toEqual([]);
    expect(events.some((e) => e.type === "notice" && e.message === "process reused" && e.data?.["prewarmed"] === true)).toBe(true);
  });

  it("HTTP 400 from the model: RunError agent_error with the API's message and status", async () => {
    h = await geminiHarness([
      { when: whenGeminiPromptSays("fail please"), reply: { error: { status: 400, message: "scripted bad request" } } },
    ]);
    const err = await h.agent.run("fail please").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect(isError(err, ErrAgentFailed)).toBe(true);
    expect((err as RunError).reason).toBe("agent_error");
    expect((err as RunError).message).toContain("scripted bad request");
    expect((err as RunError).details).toMatchObject({ apiErrorStatus: 400 });
  });
});
