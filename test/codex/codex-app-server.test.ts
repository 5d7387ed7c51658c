import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { ErrInvalidOutputSchema } from "@adaptor/driver";
import { findError, isError } from "@adaptor/errors";
import { PATCH_FILE_CONTENT, whenPromptSays, whenToolOutput } from "@adaptor/testkit";
import { Agent, type AgentEvent } from "adaptor";
import { CodexRpcError } from "@adaptor/codex";
import { alive, codexHarness, type CodexHarness } from "./support.js";

// Real codex binary (pinned 0.171.0) over `codex app-server`, against the testkit's scripted OpenAI
// Responses server on 127.0.0.1 with an isolated CODEX_HOME (notes/cli-protocols.md §3).

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ASK = { approvals: { permission: "ask" } } as const;

describe("codex app-server driver on the real binary", () => {
  it("text turn through an Agent: deltas, thinking, text, model, provider, usage, thread checkpoint", async () => {
    h = await codexHarness();
    const agent = new Agent(h.driver);
    const stream = agent.stream("say hello THINK");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(result.text).toBe('Fake reply. I saw 4 input item(s), 1 user message(s); first user text: "say hello THINK"');
    expect(
      events
        .filter((e) => e.type === "text-delta")
        .map((e) => (e.type === "text-delta" ? e.text : ""))
        .join(""),
    ).toBe(result.text);
    expect(events.some((e) => e.type === "thinking-delta" && e.text.length > 0)).toBe(true);
    expect(result.model).toBe("gpt-5.5");
    expect(result.provider).toBe("fake");
    expect(result.usage).toEqual({ inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
    expect(JSON.parse(result.raw().terminal?.json ?? "{}")).toMatchObject({
      method: "turn/completed",
      params: { turn: { status: "completed" } },
    });
    expect(result.transcript()).toEqual(
      expect.arrayContaining([
        { kind: "user", text: "say hello THINK" },
        { kind: "assistant", text: result.text },
      ]),
    );
    await agent.close();
  });

  it("checkpoint is the thread id from codex's reply (the id the model server saw)", async () => {
    h = await codexHarness();
    const run = await runDriver(h.driver, { prompt: "hello" });
    const body = h.server.responses()[0]?.body as { client_metadata?: { thread_id?: string } };
    expect(run.response?.checkpoint?.resumeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.response?.checkpoint?.resumeId).toBe(body.client_metadata?.thread_id);
    expect(run.response?.exit).toEqual({ code: 0, signal: null }); // codex exits on stdin EOF
    expect(alive(run.recording.pids()[0] as number)).toBe(false);
  });

  it("command approved: the ask carries the command, the command runs, its output reaches the model", async () => {
    h = await codexHarness();
    // unrestricted: the driver refuses ask with a confining sandbox (codex runs an approved command
    // outside it); without one the write can land, so the ask is what is under test.
    const run = await runDriver(h.driver, {
      prompt: "SHELL_CMD echo approved > a.txt; cat a.txt",
      policy: { ...ASK, sandbox: "unrestricted" },
    });
    expect(run.response?.failure).toBeUndefined();
    const [ask] = run.recording.asks;
    expect(run.recording.asks).toHaveLength(1);
    expect(ask).toMatchObject({ kind: "permission", toolName: "shell", details: { method: "item/commandExecution/requestApproval" } });
    expect(ask?.details?.command).toContain("echo approved > a.txt");
    expect(readFileSync(join(h.env.workDir, "a.txt"), "utf8")).toBe("approved\n");
    const toolResult = run.recording.ofType("tool-result")[0];
    expect(toolResult).toMatchObject({ id: ask?.toolCallId, name: "shell", isError: false });
    expect(toolResult?.output).toContain("approved");
    expect(h.server.responses().at(-1)?.view.lastToolOutput).toMatchObject({ toolName: "exec_command" });
    expect(run.response?.text).toMatch(/^Done: /);
  });

  it("command declined: nothing runs, the tool result is an error, codex tells the model", async () => {
    h = await codexHarness();
    const run = await runDriver(
      h.driver,
      { prompt: "SHELL_CMD echo declined > d.txt", policy: ASK },
      {
        onApproval: () => ({ outcome: "deny", reason: "not here" }),
      },
    );
    expect(run.response?.failure).toBeUndefined();
    expect(run.recording.asks).toHaveLength(1);
    expect(existsSync(join(h.env.workDir, "d.txt"))).toBe(false);
    expect(run.recording.ofType("tool-result")[0]).toMatchObject({ isError: true, output: "declined" });
    const input = (h.server.responses().at(-1)?.body as { input: { type: string; output?: string }[] }).input;
    expect(input.find((item) => item.type === "function_call_output")?.output).toContain("rejected by user");
  });

  it("file change approved: the ask carries the diff, the file is written, the result holds the diff", async () => {
    h = await codexHarness();
    const run = await runDriver(h.driver, { prompt: "PATCH_FILE patched.txt", policy: ASK });
    expect(run.response?.failure).toBeUndefined();
    expect(run.recording.asks).toHaveLength(1);
    const ask = run.recording.asks[0];
    expect(ask).toMatchObject({ kind: "permission", toolName: "apply_patch", details: { method: "item/fileChange/requestApproval" } });
    expect(ask?.details?.diff).toContain(PATCH_FILE_CONTENT.trim());
    expect(readFileSync(join(h.env.workDir, "patched.txt"), "utf8")).toBe(PATCH_FILE_CONTENT);
    const toolResult = run.recording.ofType("tool-result").find((r) => r.name === "apply_patch");
    expect(toolResult).toMatchObject({ isError: false });
    expect(toolResult?.output).toContain("patched.txt");
    expect(
      run.recording.ofType("notice").some((n) => n.kind === "diff" && String(n.data?.diff).includes("+hello from fake codex model")),
    ).toBe(true);
  });

  it("a host approval that fails is answered with a decline (the request never goes unanswered)", async () => {
    h = await codexHarness();
    const run = await runDriver(
      h.driver,
      { prompt: "SHELL_CMD echo boom > b.txt", policy: ASK },
      {
        onApproval: () => Promise.reject(new Error("host crashed")),
      },
    );
    expect(run.response?.failure).toBeUndefined();
    expect(existsSync(join(h.env.workDir, "b.txt"))).toBe(false);
    expect(run.recording.ofType("tool-result")[0]?.isError).toBe(true);
  });

  it("interrupt: turn/interrupt ends the slow turn, the run rejects with the abort reason, codex is gone", async () => {
    h = await codexHarness();
    const run = await runDriver(
      h.driver,
      { prompt: "SLOW_MS 20000 slow one" },
      {
        cancelWhen: (rec) => rec.ofType("notice").some((n) => n.message === "turn started"),
      },
    );
    expect(run.error).toBe(run.abortReason);
    const completed = run.recording.ofType("notice").find((n) => n.message === "turn completed");
    expect(completed?.data).toMatchObject({ status: "interrupted" });
    const [pid] = run.recording.pids();
    expect(alive(pid as number)).toBe(false);
  });

  it("resume in a new process: the model server sees the history, the checkpoint keeps the thread id", async () => {
    h = await codexHarness();
    const first = await runDriver(h.driver, { prompt: "first turn" });
    const resumeId = first.response?.checkpoint?.resumeId as string;
    const second = await runDriver(h.driver, { prompt: "second turn", session: { resumeId } });
    expect(second.response?.failure).toBeUndefined();
    expect(second.response?.checkpoint?.resumeId).toBe(resumeId);
    const view = h.server.responses().at(-1)?.view;
    expect(view?.userTexts).toEqual(["first turn", "second turn"]);
    expect(second.response?.text).toContain('2 user message(s); first user text: "first turn"');
    expect(second.recording.pids()[0]).not.toBe(first.recording.pids()[0]);
  });

  it("fork: a new thread id from codex, the history carried over, the original left as it was", async () => {
    h = await codexHarness();
    const first = await runDriver(h.driver, { prompt: "original turn" });
    const resumeId = first.response?.checkpoint?.resumeId as string;
    const forked = await runDriver(h.driver, { prompt: "forked turn", session: { resumeId, fork: true } });
    const forkId = forked.response?.checkpoint?.resumeId;
    expect(forkId).toMatch(/^[0-9a-f-]{36}$/);
    expect(forkId).not.toBe(resumeId);
    expect(h.server.responses().at(-1)?.view.userTexts).toEqual(["original turn", "forked turn"]);
    const again = await runDriver(h.driver, { prompt: "back on the original", session: { resumeId } });
    expect(h.server.responses().at(-1)?.view.userTexts).toEqual(["original turn", "back on the original"]);
    expect(again.response?.checkpoint?.resumeId).toBe(resumeId);
  });

  it("a thread id codex cannot find: failure resume_rejected with the JSON-RPC error as cause, no checkpoint", async () => {
    h = await codexHarness();
    const run = await runDriver(h.driver, { prompt: "x", session: { resumeId: "01a22aad-0000-7151-8abd-ab26857b7754" } });
    expect(run.error).toBeUndefined();
    expect(run.response?.failure).toMatchObject({ reason: "resume_rejected", details: { code: -32600 } });
    expect(run.response?.failure?.message).toContain("no rollout found");
    const cause = findError(run.response?.failure?.cause, CodexRpcError);
    expect(cause).toMatchObject({ method: "thread/resume", code: -32600 });
    expect(run.response?.checkpoint).toBeUndefined();
    expect(h.server.responses()).toHaveLength(0);
  });

  it("structured output with a non-strict schema: strict form sent, parsed value returned, optional nulls dropped", async () => {
    h = await codexHarness();
    const outputSchema = { type: "object", properties: { answer: { type: "string" }, note: { type: "string" } }, required: ["answer"] };
    const run = await runDriver(h.driver, { prompt: 'JSON_REPLY {"answer":"forty-two","note":null}', outputSchema });
    expect(run.response?.failure).toBeUndefined();
    expect(run.response?.structured).toEqual({ answer: "forty-two" });
    expect(h.server.responses()[0]?.view.outputSchema).toEqual({
      type: "object",
      properties: { answer: { type: "string" }, note: { type: ["string", "null"] } },
      required: ["answer", "note"],
      additionalProperties: false,
    });
  });

  it("structured output not matching the caller's schema is returned as parsed (local validation is the SDK's)", async () => {
    h = await codexHarness();
    const outputSchema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    const run = await runDriver(h.driver, { prompt: 'JSON_REPLY {"answer":42}', outputSchema });
    expect(run.response?.structured).toEqual({ answer: 42 });
  });

  it("an output schema strict mode cannot express is refused before launch", async () => {
    h = await codexHarness();
    const run = await runDriver(h.driver, {
      prompt: "x",
      outputSchema: { type: "object", properties: { a: { oneOf: [{ type: "string" }] } } },
    });
    expect(isError(run.error, ErrInvalidOutputSchema)).toBe(true);
    expect(run.recording.events).toEqual([]);
    expect(h.server.responses()).toHaveLength(0);
  });

  it("HTTP 400 from the model API: failure agent_error carrying the API's message", async () => {
    h = await codexHarness({
      rules: [{ when: whenPromptSays("break"), reply: { error: { status: 400, message: "scripted bad request" } } }],
    });
    const run = await runDriver(h.driver, { prompt: "break please" });
    expect(run.error).toBeUndefined();
    expect(run.response?.failure).toMatchObject({
      reason: "agent_error",
      message: "scripted bad request",
      details: { status: "failed", apiError: { type: "invalid_request_error" } },
    });
    expect(run.response?.checkpoint).toBeUndefined();
    expect(run.recording.ofType("notice").some((n) => n.kind === "error")).toBe(true);
  });

  it("a turn that fails after the agent wrote text keeps that text in the failed response", async () => {
    h = await codexHarness({
      rules: [
        {
          when: whenPromptSays("look then break"),
          reply: { text: "Looking first.", functionCall: { name: "exec_command", arguments: { cmd: "echo step" } } },
        },
        { when: whenToolOutput("exec_command", "step"), reply: { error: { status: 400, message: "scripted bad request" } } },
      ],
    });
    const run = await runDriver(h.driver, {
      prompt: "look then break",
      policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve" } },
    });
    expect(run.error).toBeUndefined();
    expect(run.response?.failure).toMatchObject({ reason: "agent_error", message: "scripted bad request" });
    expect(run.response?.text).toBe("Looking first.");
  });
});
