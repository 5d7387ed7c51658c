import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import {
  ErrAgentClosed,
  ErrAgentFailed,
  ErrRunCancelled,
  InvalidOptionError,
  RunError,
  findError,
  isError,
  type AgentEvent,
} from "adaptor";
import { alive, harness, spawnedPid, type Harness } from "./support.js";

// Real claude binary (pinned 2.1.332) against the testkit's scripted Anthropic server on 127.0.0.1.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("claude driver on the real binary", () => {
  it("text turn: streams deltas and resolves text, model, usage, cost and a session checkpoint", async () => {
    h = await harness([{ when: whenUserSays("say hello"), reply: { text: "Hello from the scripted model." } }]);
    const stream = h.agent.stream("please say hello");
    const events = await collect(stream);
    const result = await stream.result();
    expect(result.text).toBe("Hello from the scripted model.");
    expect(result.model).toBe("claude-sonnet-4-5");
    expect(result.provider).toBe("anthropic");
    expect(result.usage?.outputTokens).toBeGreaterThan(0);
    expect(result.costUsd).toBeGreaterThan(0);
    expect(
      events
        .filter((e) => e.type === "text-delta")
        .map((e) => (e.type === "text-delta" ? e.text : ""))
        .join(""),
    ).toBe("Hello from the scripted model.");
    expect(events[0]?.type).toBe("run-started");
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: true });
    const terminal = JSON.parse(result.raw().terminal?.json ?? "{}") as { type?: string; subtype?: string };
    expect(terminal).toMatchObject({ type: "result", subtype: "success" });
    expect(result.transcript().some((item) => item.kind === "assistant" && item.text === "Hello from the scripted model.")).toBe(true);
    expect(h.server.requests.some((r) => r.view.lastUserText.includes("please say hello"))).toBe(true);
  });

  it("tool turn approved: the Write runs and the tool result reaches the model", async () => {
    h = await harness();
    const file = join(h.env.workDir, "hello.txt");
    const stream = h.agent.stream(`WRITE_FILE ${file}`);
    const approvals: string[] = [];
    for await (const event of stream) {
      if (event.type === "approval-request") {
        approvals.push(`${event.request.kind}:${event.request.toolName}:${event.request.toolCallId ?? "-"}`);
        expect(event.request.input).toMatchObject({ file_path: file });
        event.request.approve();
      }
    }
    const result = await stream.result();
    expect(approvals).toEqual([expect.stringMatching(/^permission:Write:toolu_[0-9a-f]{32}$/)]);
    expect(existsSync(file)).toBe(true);
    expect(result.text).toMatch(/^Done: /);
    const last = h.server.requests.at(-1);
    expect(last?.view.lastToolResult).toMatchObject({ toolName: "Write", isError: false });
  });

  it("tool turn denied: nothing is written and the deny message reaches the model", async () => {
    h = await harness([], {}, { onApproval: (request) => request.deny("not in this repo, thanks") });
    const file = join(h.env.workDir, "denied.txt");
    const result = await h.agent.run(`WRITE_FILE ${file}`);
    expect(existsSync(file)).toBe(false);
    const toolResult = h.server.requests.at(-1)?.view.lastToolResult;
    expect(toolResult?.isError).toBe(true);
    expect(toolResult?.content).toContain("not in this repo, thanks");
    expect(result.text).toContain("not in this repo, thanks");
  });

  it("approve with updatedInput: the CLI uses the host's edited input", async () => {
    h = await harness(
      [],
      {},
      {
        onApproval: (request) => {
          const input = request.input as { file_path: string; content: string };
          request.approve({ updatedInput: { ...input, content: "edited by the host\n" } });
        },
      },
    );
    const file = join(h.env.workDir, "edited.txt");
    await h.agent.run(`WRITE_FILE ${file}`);
    expect(readFileSync(file, "utf8")).toBe("edited by the host\n");
  });

  it.each([
    ["null", null],
    ["a string", "content: edited"],
    ["an array", [{ content: "edited" }]],
  ])("approve with updatedInput %s: InvalidOptionError at once, nothing decided, the host's next answer counts", async (_name, value) => {
    const thrown: unknown[] = [];
    h = await harness(
      [],
      {},
      {
        onApproval: (request) => {
          expect(request.inputEditable).toBe(true);
          try {
            request.approve({ updatedInput: value });
          } catch (error) {
            thrown.push(error);
          }
          expect(request.status).toBe("pending");
          request.deny("bad edit, refused by the host");
        },
      },
    );
    const file = join(h.env.workDir, "bad-edit.txt");
    const result = await h.agent.run(`WRITE_FILE ${file}`);
    expect(thrown).toHaveLength(1);
    expect(thrown[0]).toBeInstanceOf(InvalidOptionError);
    expect(thrown[0]).toMatchObject({ subject: "approve()", field: "updatedInput" });
    expect(existsSync(file)).toBe(false);
    expect(result.text).toContain("bad edit, refused by the host");
  });

  it("tool calls stream start, args and end phases and a tool-result event", async () => {
    h = await harness(
      [
        { when: whenUserSays("list"), reply: { toolUse: { name: "Bash", input: { command: "echo listed-ok", description: "echo" } } } },
        { when: whenToolResult("Bash"), reply: { text: "seen" } },
      ],
      {},
      { onApproval: (r) => r.approve() },
    );
    const stream = h.agent.stream("list files");
    const events = await collect(stream);
    await stream.result();
    const phases = events.flatMap((e) => (e.type === "tool-call" ? [e.phase] : []));
    expect(phases[0]).toBe("start");
    expect(phases).toContain("args");
    expect(phases.at(-1)).toBe("end");
    const toolResult = events.find((e) => e.type === "tool-result");
    expect(toolResult).toMatchObject({ type: "tool-result", name: "Bash", isError: false });
    expect(toolResult?.type === "tool-result" && toolResult.output).toContain("listed-ok");
  });

  it("HTTP 400 from the API: RunError agent_error carrying the API message and status", async () => {
    h = await harness([{ when: whenUserSays("fail please"), reply: { error: { status: 400, message: "scripted bad request" } } }]);
    const err = await h.agent.run("fail please").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    const runError = err as RunError;
    expect(runError.reason).toBe("agent_error");
    expect(isError(err, ErrAgentFailed)).toBe(true);
    expect(runError.message).toContain("scripted bad request");
    expect(runError.details).toMatchObject({ apiErrorStatus: 400 });
    expect(runError.result.raw().terminal?.json).toContain('"is_error":true');
  });

  it("cancel() mid-turn: interrupt, infrastructure verdict (not ErrRunCancelled), process gone", async () => {
    h = await harness([{ when: whenUserSays("slow"), reply: { text: "too late", delayMs: 20_000 } }]);
    const stream = h.agent.stream("slow one");
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "notice" && event.message === "init") stream.cancel();
    }
    const err = await stream.result().catch((e: unknown) => e);
    expect((err as Error).name).toBe("AbortError");
    expect(err).not.toBeInstanceOf(RunError);
    expect(isError(err, ErrRunCancelled)).toBe(false);
    const pid = spawnedPid(events);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid!)).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: false });
  });

  it("close() with a run in flight reaps the process; a later run rejects with ErrAgentClosed", async () => {
    h = await harness([{ when: whenUserSays("slow"), reply: { text: "too late", delayMs: 20_000 } }]);
    const stream = h.agent.stream("slow again");
    let pid: number | undefined;
    for await (const event of stream) {
      if (event.type === "process" && event.kind === "spawn") pid = event.pid;
      if (event.type === "notice" && event.message === "init") await h.agent.close();
    }
    expect(isError(await stream.result().catch((e: unknown) => e), ErrAgentClosed)).toBe(true);
    expect(alive(pid!)).toBe(false);
    const later = await h.agent.run("hello").catch((e: unknown) => e);
    expect(isError(later, ErrAgentClosed)).toBe(true);
    expect(findError(later, RunError)).toBeUndefined();
  });
});
