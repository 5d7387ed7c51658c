import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { Agent, type AgentEvent } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";
import { drain, drainApproving, pidOf } from "../support/turn-events.js";

// What a host does during a running turn, on the real claude binary: interrupt it (the
// conversation and the process stay), send it another message, switch its model.

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

function threadAgent(harnessed: Harness, store: MemoryThreadStore): Agent {
  return new Agent(claude({ cwd: harnessed.env.workDir, env: harnessed.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    threadStore: store,
  });
}

/** The texts of every user message of a Messages request body, in order. */
function userTexts(body: unknown): string[] {
  const messages = (body as { messages: { role: string; content: string | { type: string; text?: string }[] }[] }).messages;
  return messages
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((c) => c.text ?? `[${c.type}]`).join(" | ")));
}

describe("during a turn on the real claude binary", { timeout: 120_000 }, () => {
  it("interrupt stops a slow turn, resolves status interrupted, and the next turn reuses the process with the history", async () => {
    h = await harness([
      { name: "after", when: whenUserSays("after the interrupt"), reply: { text: "answered after" } },
      { name: "slow", when: whenUserSays("slow question"), reply: { text: "never seen", delayMs: 60_000 } },
    ]);
    const store = new MemoryThreadStore();
    agent = threadAgent(h, store);
    const thread = agent.thread("chat");
    const first = thread.stream("first turn");
    await drain(first);
    const slow = thread.stream("slow question");
    const events = drain(slow);
    // Interrupt once the model request of the slow turn is in.
    await vi.waitFor(() => expect(h!.server.requests.some((r) => r.rule === "slow")).toBe(true), { timeout: 60_000, interval: 100 });
    await expect(slow.interrupt()).resolves.toBe(true);
    const slowEvents = await events;
    const result = await slow.result();
    expect(result.status).toBe("interrupted");
    expect(slowEvents.at(-1)).toMatchObject({ type: "run-finished", ok: true, interrupted: true });
    // No model response came: none is counted (the CLI's num_turns counts the interrupt's messages).
    expect(slowEvents.filter((e) => e.type === "notice" && e.kind === "model.response")).toEqual([]);
    expect(result.numTurns).toBe(0);
    // Its usage is zeros, as on Codex.
    expect(result.usage).toMatchObject({ inputTokens: 0, outputTokens: 0 });
    const next = thread.stream("after the interrupt");
    const nextEvents = await drain(next);
    expect((await next.result()).status).toBe("completed");
    expect(pidOf(nextEvents)).toBe(pidOf(slowEvents));
    expect((await next.result()).text).toBe("answered after");
    // The next model request carries the first turn and, merged into one user message by the CLI,
    // the interrupted prompt, the CLI's interruption marker and the new prompt.
    const last = h.server.requests.at(-1)!;
    expect(last.rule).toBe("after");
    const texts = userTexts(last.body);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain("first turn");
    expect(texts[1]).toMatch(/slow question[\s\S]*\[Request interrupted by user\][\s\S]*after the interrupt/);
    // After the run, there is nothing to interrupt.
    await expect(slow.interrupt()).resolves.toBe(false);
  });

  it("an interrupt while a tool call waits for approval: numTurns is the one model response that asked for it; the approval expires before the turn ends and the call is a permission denial", async () => {
    h = await harness([
      { name: "bash", when: whenUserSays("please list"), reply: { toolUse: { name: "Bash", input: { command: "echo hi" } } } },
    ]);
    agent = threadAgent(h, new MemoryThreadStore());
    const stream = agent.thread("chat").stream("please list", { policy: { approvals: { permission: "ask" } } });
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "approval-request") void stream.interrupt();
    }
    const result = await stream.result();
    expect(result.status).toBe("interrupted");
    expect(events.filter((e) => e.type === "notice" && e.kind === "model.response")).toHaveLength(1);
    expect(result.numTurns).toBe(1);
    // The same answer as codex's: an expired approval is a denial, resolved before the turn's result.
    const call = events.find((e) => e.type === "tool-call" && e.phase === "start");
    expect(result.permissionDenials?.map((d) => [d.toolName, d.toolCallId])).toEqual([
      ["Bash", call?.type === "tool-call" ? call.id : "?"],
    ]);
    const resolved = events.findIndex((e) => e.type === "notice" && e.kind === "approval.resolved");
    expect(events[resolved]).toMatchObject({ data: { outcome: "expired" } });
    const toolResult = events.findIndex((e) => e.type === "tool-result");
    expect(events[toolResult]).toMatchObject({ isError: true, output: expect.stringContaining("rejected") });
    expect(resolved).toBeLessThan(toolResult);
  });

  it("an interrupted turn is the thread's checkpoint: a turn resumed in a new process continues after it", async () => {
    h = await harness([
      { name: "after", when: whenUserSays("in a new process"), reply: { text: "resumed" } },
      { name: "slow", when: whenUserSays("slow question"), reply: { text: "never seen", delayMs: 60_000 } },
    ]);
    agent = threadAgent(h, new MemoryThreadStore());
    const thread = agent.thread("chat");
    await drain(thread.stream("first turn"));
    const slow = thread.stream("slow question");
    const slowEvents = drain(slow);
    await vi.waitFor(() => expect(h!.server.requests.some((r) => r.rule === "slow")).toBe(true), { timeout: 60_000, interval: 100 });
    await slow.interrupt();
    expect((await slow.result()).status).toBe("interrupted");
    const next = thread.stream("in a new process", { spawn: true });
    const nextEvents = await drain(next);
    expect((await next.result()).text).toBe("resumed");
    expect(pidOf(nextEvents)).not.toBe(pidOf(await slowEvents));
    // The same history as on the reused process: the interrupted prompt and the CLI's marker stay.
    const texts = userTexts(h.server.requests.at(-1)!.body);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain("first turn");
    expect(texts[1]).toMatch(/slow question[\s\S]*\[Request interrupted by user\][\s\S]*in a new process/);
  });

  it("send gives the running turn another user message, which its next model request carries", async () => {
    h = await harness([
      { name: "tool", when: whenUserSays("list the files"), reply: { toolUse: { name: "Bash", input: { command: "mkdir made" } } } },
      { name: "after-tool", when: whenToolResult("Bash"), reply: { text: "listed them" } },
    ]);
    const stream = h.agent.stream("list the files", { policy: { approvals: { permission: "ask" } } });
    const events = await drainApproving(stream, () => expect(stream.send("also mention bananas")).resolves.toBe(true));
    const result = await stream.result();
    expect(result.status).toBe("completed");
    expect(result.text).toBe("listed them");
    // One turn, two model requests: the message is not in the first and is in the second, which
    // the CLI sends with the tool's result (it surfaces the message there, beside the result).
    expect(h.server.requests.map((r) => r.rule)).toEqual(["tool", "after-tool"]);
    expect(JSON.stringify(h.server.requests[0]!.body)).not.toContain("also mention bananas");
    const lastMessage = JSON.stringify((h.server.requests[1]!.body as { messages: unknown[] }).messages.at(-1));
    expect(lastMessage).toContain("also mention bananas");
    expect(lastMessage).toContain("tool_result");
    // The notice marks where the turn took it in: after the approval, before the second response.
    const marks = events.flatMap((e) =>
      e.type === "notice" && ["approval.resolved", "input.accepted", "model.response"].includes(e.kind) ? [e.kind] : [],
    );
    expect(marks).toEqual(["model.response", "approval.resolved", "input.accepted", "model.response"]);
    const accepted = events.find((e) => e.type === "notice" && e.kind === "input.accepted");
    expect(accepted).toMatchObject({ data: { text: "also mention bananas" } });
  });

  it("send with an image gives the running turn a user message whose image bytes its next model request carries", async () => {
    h = await harness([
      { name: "tool", when: whenUserSays("list the files"), reply: { toolUse: { name: "Bash", input: { command: "mkdir made" } } } },
      { name: "after-tool", when: whenToolResult("Bash"), reply: { text: "listed them" } },
    ]);
    const stream = h.agent.stream("list the files", { policy: { approvals: { permission: "ask" } } });
    const message = [{ type: "image" as const, data: PNG }, "what is in this picture"];
    await drainApproving(stream, () => expect(stream.send(message)).resolves.toBe(true));
    expect((await stream.result()).text).toBe("listed them");
    expect(h.server.requests.map((r) => r.rule)).toEqual(["tool", "after-tool"]);
    expect(JSON.stringify(h.server.requests[0]!.body)).not.toContain(PNG.toString("base64"));
    // The second request carries the message: its image block with the bytes, and its text.
    const blocks = (h.server.requests[1]!.body as { messages: { content: string | Record<string, unknown>[] }[] }).messages.flatMap((m) =>
      typeof m.content === "string" ? [] : m.content,
    );
    // Claude Code 2.1.332 surfaces the text in a reminder beside the tool result, and the image block after it.
    expect(blocks.find((block) => block.type === "image")).toMatchObject({
      source: { type: "base64", media_type: "image/png", data: PNG.toString("base64") },
    });
    expect(blocks.some((block) => block.type === "text" && String(block.text).includes("what is in this picture"))).toBe(true);
  });

  it("setModel switches the model for the rest of the turn: its next model request names the new model", async () => {
    h = await harness([
      { name: "tool", when: whenUserSays("make a folder"), reply: { toolUse: { name: "Bash", input: { command: "mkdir made" } } } },
      { name: "after-tool", when: whenToolResult("Bash"), reply: { text: "made it" } },
    ]);
    const stream = h.agent.stream("make a folder", { model: "claude-sonnet-4-5", policy: { approvals: { permission: "ask" } } });
    await drainApproving(stream, () => expect(stream.setModel("claude-haiku-4-5")).resolves.toBe(true));
    expect((await stream.result()).text).toBe("made it");
    // The CLI's own side requests (answered by the server's directives) are not the turn's.
    const turnRequests = h.server.requests.filter((r) => r.rule !== "directive");
    expect(turnRequests.map((r) => [r.rule, r.view.model])).toEqual([
      ["tool", "claude-sonnet-4-5"],
      ["after-tool", "claude-haiku-4-5"],
    ]);
  });

  it("setModel asked while the CLI starts, after the prompt went out: the turn's later requests run on the new model, with no model notice", async () => {
    h = await harness([
      { name: "tool", when: whenUserSays("make a folder"), reply: { toolUse: { name: "Bash", input: { command: "mkdir made" } } } },
      { name: "after-tool", when: whenToolResult("Bash"), reply: { text: "made it" } },
    ]);
    // A session-start hook of the user's settings keeps the CLI from its prompt for seconds.
    const hook = [{ hooks: [{ type: "command", command: "sleep 4" }] }];
    await writeFile(join(h.env.configDir, "settings.json"), JSON.stringify({ hooks: { SessionStart: hook } }));
    const stream = h.agent.stream("make a folder", { model: "claude-sonnet-4-5", onApproval: (request) => request.approve() });
    // Asked a second after the CLI process is spawned (its prompt is written), while it starts.
    let switched: Promise<boolean> | undefined;
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "process" && event.kind === "spawn") setTimeout(() => (switched = stream.setModel("claude-haiku-4-5")), 1000);
    }
    await expect(switched).resolves.toBe(true);
    const result = await stream.result();
    expect(result.text).toBe("made it");
    const turnRequests = h.server.requests.filter((r) => r.rule !== "directive");
    expect(turnRequests.map((r) => r.rule)).toEqual(["tool", "after-tool"]);
    // The switch waits for the CLI to start the turn (starting its first prompt, claude goes back to
    // its --model, losing a switch it took meanwhile): the turn begins on the model it was given,
    // and its later requests run on the new one.
    expect(turnRequests[0]?.view.model).toBe("claude-sonnet-4-5");
    expect(turnRequests[1]?.view.model).toBe("claude-haiku-4-5");
    expect(result.model).toBe("claude-haiku-4-5");
    expect(events.filter((event) => event.type === "notice" && event.kind.startsWith("model.") && event.kind !== "model.response")).toEqual(
      [],
    );
  });

  it("setApprovalMode applies to the rest of the turn: after auto_approve the next tool call is approved without asking", async () => {
    h = await harness([
      { name: "first", when: whenUserSays("make two folders"), reply: { toolUse: { name: "Bash", input: { command: "mkdir one" } } } },
      // The first tool result (user, assistant, tool result: 3 messages) gets the second call.
      {
        name: "second",
        when: (view) => view.lastToolResult?.toolName === "Bash" && view.messageCount === 3,
        reply: { toolUse: { name: "Bash", input: { command: "mkdir two" } } },
      },
      { name: "done", when: whenToolResult("Bash"), reply: { text: "made both" } },
    ]);
    const stream = h.agent.stream("make two folders", { policy: { approvals: { permission: "ask" } } });
    const asked: string[] = [];
    const resolved: string[] = [];
    for await (const event of stream) {
      if (event.type === "notice" && event.kind === "approval.resolved") resolved.push(event.data?.auto === true ? "auto" : "asked");
      if (event.type === "approval-request") {
        asked.push(JSON.stringify(event.request.details?.input ?? event.request.title));
        await expect(stream.setApprovalMode({ permission: "auto_approve" })).resolves.toBe(true);
        event.request.approve();
      }
    }
    expect((await stream.result()).text).toBe("made both");
    expect(asked).toHaveLength(1);
    // The first ask went to the host; the second was approved by the new mode without asking.
    expect(resolved).toEqual(["asked", "auto"]);
    expect(h.server.requests.filter((r) => r.rule !== "directive").map((r) => r.view.lastToolResult?.isError ?? null)).toEqual([
      null,
      false,
      false,
    ]);
  });
});
