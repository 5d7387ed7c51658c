import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays, whenToolOutput, type ResponsesRequestView } from "@adaptor/testkit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, type AgentEvent, type ApprovalRequest, type NoticeEvent, type Result, type Stream, type Thread } from "adaptor";
import { codex } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";

// The Claude Agent SDK's result fields on codex (real binary): `numTurns` is the run's model
// responses on the app-server transport (one usage update each, as its `model.response`
// notices; a context compaction's requests are not counted), and `permissionDenials` the calls the
// host's decision refused there; codex reports no API time and no usage per model, so those stay
// unset, and exec, with no per-response event and no approvals, reports neither turn count nor
// denials. A compaction codex ran is a `context.compacted` notice, and the turn's usage its own.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const shell = (cmd: string) => ({ functionCall: { name: "exec_command", arguments: { cmd } } });
const RULES = [
  { when: whenPromptSays("two commands"), reply: shell("echo one") },
  { when: whenToolOutput("exec_command", "one"), reply: shell("echo two") },
  { when: whenToolOutput("exec_command", "two"), reply: { text: "both ran" } },
  { when: whenPromptSays("just answer"), reply: { text: "answered" } },
];

/** The request after a denied call: the host's reason follows codex's rejection as a developer message. */
const afterDenial = (view: ResponsesRequestView): boolean =>
  view.lastToolOutput === undefined && view.lastUserText === "" && JSON.stringify(view.raw).includes("The host denied");

async function turnEvents(stream: Stream): Promise<{ result: Result; events: AgentEvent[] }> {
  const events: AgentEvent[] = [];
  for await (const event of stream as AsyncIterable<AgentEvent>) events.push(event);
  return { result: await stream.result(), events };
}

async function turn(stream: Stream): Promise<{ result: Result; responses: number; notices: NoticeEvent[] }> {
  const { result, events } = await turnEvents(stream);
  const notices = events.flatMap((event) => (event.type === "notice" ? [event] : []));
  const responses = notices.filter((notice) => notice.kind === "model.response").length;
  return { result, responses, notices };
}

/** An Agent with a thread store on `harness`'s codex, which summarizes the history once the context is over 1,000 tokens. */
function compactingAgent(harness: CodexHarness): Agent {
  const driver = codex({
    cwd: harness.env.workDir,
    env: harness.env.env,
    inheritEnv: false,
    killGraceMs: 1000,
    configOverrides: { model_auto_compact_token_limit: 1000 },
  });
  return new Agent(driver, { threadStore: new MemoryThreadStore() });
}

describe("a codex result's turn count and the fields codex does not report (real binary)", { timeout: 180_000 }, () => {
  it("app-server: numTurns is the run's model responses; durationApiMs and modelUsage are unset; no call was refused", async () => {
    h = await codexHarness({ rules: RULES });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000 }), {
      policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve" } },
    });
    const commands = await turn(agent.stream("two commands"));
    expect(commands.result.text).toBe("both ran");
    expect(commands.result.numTurns).toBe(3);
    expect(commands.responses).toBe(3);
    const answer = await turn(agent.stream("just answer"));
    expect(answer.result.numTurns).toBe(1);
    expect(answer.responses).toBe(1);
    for (const { result } of [commands, answer]) {
      expect(result.durationApiMs).toBeUndefined();
      expect(result.modelUsage).toBeUndefined();
      expect(result.permissionDenials).toEqual([]);
    }
  });

  it("a turn codex compacts the context for: a context.compacted notice, and the compaction's requests are no model responses", async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("fill the context"), reply: { text: "filled", usage: { input_tokens: 50_000, output_tokens: 10 } } },
        { when: whenPromptSays("after compaction"), reply: { text: "still here" } },
      ],
    });
    agent = compactingAgent(h);
    const thread = agent.thread("compacting");
    const first = await turn(thread.stream("fill the context"));
    expect(first.notices.filter((notice) => notice.kind === "context.compacted")).toEqual([]);
    const second = await turn(thread.stream("after compaction"));
    expect(second.result.text).toBe("still here");
    // The summary request codex made, then the turn's own.
    const prompts = h.server.requests.slice(1).map((request) => request.view.lastUserText ?? "");
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toContain("CONTEXT CHECKPOINT COMPACTION");
    expect(prompts[1]).toBe("after compaction");
    const compacted = second.notices.filter((notice) => notice.kind === "context.compacted");
    expect(compacted.map((notice) => notice.data)).toEqual([{ trigger: "auto" }]);
    expect([first.result.numTurns, second.result.numTurns]).toEqual([1, 1]);
    expect([first.responses, second.responses]).toEqual([1, 1]);
  });

  it("the usage of a turn codex compacts the context for is the turn's own: the summary request and the answer, not the previous turn's usage codex sends again", async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("fill the context"), reply: { text: "filled", usage: { input_tokens: 50_000, output_tokens: 10 } } },
        {
          when: whenPromptSays("CONTEXT CHECKPOINT COMPACTION"),
          reply: { text: "summary", usage: { input_tokens: 100, output_tokens: 10 } },
        },
        { when: whenPromptSays("after compaction"), reply: { text: "still here", usage: { input_tokens: 700, output_tokens: 7 } } },
      ],
    });
    agent = compactingAgent(h);
    const own = { inputTokens: 800, outputTokens: 17, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
    const compacting = async (thread: Thread, options: { spawn?: true } = {}): Promise<Awaited<ReturnType<typeof turn>>> => {
      const second = await turn(thread.stream("after compaction", options));
      expect(second.notices.filter((notice) => notice.kind === "context.compacted")).toHaveLength(1);
      return second;
    };
    // The process that ran the first turn serves the second.
    const reused = agent.thread("reused");
    expect((await turn(reused.stream("fill the context"))).result.usage).toMatchObject({ inputTokens: 50_000, outputTokens: 10 });
    expect((await compacting(reused)).result.usage).toEqual(own);
    // A new process resumes the thread.
    const resumed = agent.thread("resumed");
    await turn(resumed.stream("fill the context"));
    expect((await compacting(resumed, { spawn: true })).result.usage).toEqual(own);
    // A fork's first turn, in a process of its own.
    const parent = agent.thread("parent");
    await turn(parent.stream("fill the context"));
    expect((await compacting(parent.fork("branch"))).result.usage).toEqual(own);
    // Each compacting turn's own requests were the summary's and the answer's.
    expect(h.server.requests.map((request) => request.view.lastUserText?.slice(0, 16))).toEqual(
      Array.from({ length: 3 }, () => ["fill the context", "You are performi", "after compaction"]).flat(),
    );
  });

  it("app-server: permissionDenials lists the commands onApproval denied, with their call id and input; an approved one is not listed", async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("deny then allow"), reply: shell("echo one > one.txt") },
        { when: whenToolOutput("exec_command", "two"), reply: { text: "done" } },
        { when: afterDenial, reply: shell("echo two > two.txt && cat two.txt") },
      ],
    });
    const asked: ApprovalRequest[] = [];
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000 }), {
      policy: { sandbox: "unrestricted", approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(request);
        if (JSON.stringify(request.input).includes("one.txt")) request.deny("not this one");
        else request.approve();
      },
    });
    const { result, events } = await turnEvents(agent.stream("deny then allow"));
    expect(result.text).toBe("done");
    expect(asked.map((request) => request.status)).toEqual(["denied", "approved"]);
    const calls = events.flatMap((event) => (event.type === "tool-call" && event.phase === "end" ? [event] : []));
    expect(calls).toHaveLength(2);
    expect(result.permissionDenials).toEqual([{ toolName: "shell", toolCallId: calls[0]?.id, input: calls[0]?.input }]);
    expect(calls[0]?.input).toEqual({ command: expect.stringContaining("echo one > one.txt"), cwd: h.env.workDir });
    expect([existsSync(join(h.env.workDir, "one.txt")), existsSync(join(h.env.workDir, "two.txt"))]).toEqual([false, true]);
  });

  it("app-server: permissionDenials lists the command the auto_deny policy denied without asking", async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("deny by policy"), reply: shell("echo one > one.txt") },
        { when: afterDenial, reply: { text: "after the denial" } },
      ],
    });
    let asked = 0;
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000 }), {
      policy: { sandbox: "unrestricted", approvals: { permission: "auto_deny" } },
      onApproval: (request) => {
        asked++;
        request.approve();
      },
    });
    const { result, events } = await turnEvents(agent.stream("deny by policy"));
    expect(result.text).toBe("after the denial");
    expect(asked).toBe(0);
    const call = events.find((event) => event.type === "tool-call" && event.phase === "end");
    expect(call?.type === "tool-call" ? call.input : undefined).toEqual({
      command: expect.stringContaining("echo one > one.txt"),
      cwd: h.env.workDir,
    });
    expect(result.permissionDenials).toEqual([
      { toolName: "shell", toolCallId: call?.type === "tool-call" ? call.id : "?", input: call?.type === "tool-call" ? call.input : "?" },
    ]);
    expect(existsSync(join(h.env.workDir, "one.txt"))).toBe(false);
  });

  it("exec: none of the four is reported", async () => {
    h = await codexHarness({ rules: RULES });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport: "exec" }), {
      policy: { sandbox: "unrestricted" },
    });
    const result = await agent.run("just answer");
    expect(result.text).toBe("answered");
    expect([result.numTurns, result.durationApiMs, result.modelUsage, result.permissionDenials]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
