import { join } from "node:path";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { drainEvents, harness, type Harness } from "./support.js";

// A suspended turn's Result on the real claude binary (docs/suspend.md, "The verdict"): its text,
// usage, cost and transcript cover the model call that ran before the question.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a suspended claude turn's Result (real binary)", { timeout: 120_000 }, () => {
  it("carries the text, usage, cost and transcript of what ran before the question", async () => {
    let dir = "";
    h = await harness(
      [
        {
          when: whenUserSays("write the notes"),
          reply: () => ({
            text: "Let me write down the task.",
            toolUse: { name: "Write", input: { file_path: join(dir, "NOTES.md"), content: "x\n" } },
            usage: { input_tokens: 1200, output_tokens: 30 },
          }),
        },
        { when: whenToolResult("Write"), reply: { text: "done" } },
      ],
      { model: "claude-sonnet-4-5" },
      { threadStore: new MemoryThreadStore(), policy: { approvals: { permission: "ask" } } },
    );
    dir = h.env.workDir;
    const stream = h.agent.thread("notes").stream("write the notes", { suspend: {} });
    const events = await drainEvents(stream);
    const result = await stream.result();
    expect(result.status).toBe("suspended");
    expect(result.text).toBe("Let me write down the task.");
    expect(result.usage).toMatchObject({ inputTokens: 1200, outputTokens: 30 });
    expect(result.costUsd).toBeGreaterThan(0);
    const transcript = result.transcript();
    expect(transcript.some((item) => item.kind === "assistant" && item.text === "Let me write down the task.")).toBe(true);
    expect(transcript.some((item) => item.kind === "tool-call" && item.toolName === "Write")).toBe(true);
    const finished = events.at(-1);
    expect(finished).toMatchObject({ type: "run-finished", ok: true, suspended: true, usage: { inputTokens: 1200, outputTokens: 30 } });
  });

  it("ends the suspended call as suspended, not as a denial: no rejection result, approval span `suspended`, tool span not an error", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    let dir = "";
    h = await harness(
      [
        {
          when: whenUserSays("write the notes"),
          reply: () => ({ toolUse: { id: "toolu_notes", name: "Write", input: { file_path: join(dir, "NOTES.md"), content: "x\n" } } }),
        },
        { when: whenToolResult("Write"), reply: { text: "done" } },
      ],
      {},
      {
        threadStore: new MemoryThreadStore(),
        policy: { approvals: { permission: "ask" } },
        telemetry: { tracer: provider.getTracer("test") },
      },
    );
    dir = h.env.workDir;
    const stream = h.agent.thread("notes").stream("write the notes", { suspend: {} });
    const events = await drainEvents(stream);
    expect((await stream.result()).status).toBe("suspended");
    // The call was made (start and end) and never answered: the CLI's rejection is not reported.
    const calls = events.filter((e) => e.type === "tool-call" && e.id === "toolu_notes").map((e) => e.type === "tool-call" && e.phase);
    expect(calls).toContain("start");
    expect(calls).toContain("end");
    expect(events.filter((e) => e.type === "tool-result")).toEqual([]);
    // The CLI withdrawing its permission ask is understood, not passed on as an unknown line.
    const runtime = events.flatMap((e) => (e.type === "notice" && e.kind === "runtime" ? [e.message] : []));
    expect(runtime.filter((m) => m?.startsWith("unhandled line type"))).toEqual([]);
    const kinds = events.flatMap((e) => (e.type === "notice" ? [e.kind] : []));
    expect(kinds).toContain("approval.suspended");
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: true, suspended: true });

    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    const approval = spans.find((s) => s.name === "adaptor.approval");
    expect(approval?.attributes["adaptor.approval.decision"]).toBe("suspended");
    const tool = spans.find((s) => s.name === "adaptor.tool_call");
    expect(tool?.attributes["gen_ai.tool.call.id"]).toBe("toolu_notes");
    expect(tool?.status.code).not.toBe(2); // SpanStatusCode.ERROR
    expect(tool?.attributes["adaptor.tool.is_error"]).toBeUndefined();
    expect(tool?.attributes["adaptor.tool.unfinished"]).toBe(true);
    expect(spans.find((s) => s.name === "adaptor.run")?.attributes["adaptor.verdict"]).toBe("ok");
    await provider.shutdown();
  });
});
