// OpenTelemetry on a real claude run (real binary, scripted Anthropic server): a Bash tool call
// that needs an approval yields the span tree host → run → {spawn, tool call → approval}, with the
// documented attributes, no prompt text, and the run's W3C trace context in the CLI's environment
// (the tool's own output carries TRACEPARENT back to the model).
import { context, trace, type Span as HostSpan } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import type { AgentEvent } from "adaptor";
import { harness, type Harness } from "./support.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();
let h: Harness | undefined;

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  exporter.reset();
});
afterAll(async () => {
  context.disable();
  await provider.shutdown();
});

const PROMPT = "print the trace context please";

const byName = (spans: readonly ReadableSpan[], name: string): ReadableSpan[] => spans.filter((s) => s.name === name);
const one = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
  const found = byName(spans, name);
  expect(
    found.map((s) => s.name),
    name,
  ).toEqual([name]);
  return found[0]!;
};
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

describe("OpenTelemetry spans of a claude run", () => {
  it("host span → adaptor.run → spawn, tool call → approval; attributes, no prompt text, TRACEPARENT in the CLI", async () => {
    h = await harness(
      [
        {
          when: whenUserSays("print the trace"),
          reply: { toolUse: { name: "Bash", input: { command: 'echo "tp=$TRACEPARENT"', description: "print" } } },
        },
        { when: whenToolResult("Bash"), reply: { text: "printed" } },
      ],
      { askForEveryTool: true },
      { telemetry: { tracer: provider.getTracer("adaptor") } },
    );
    const agent = h.agent;
    const host = provider.getTracer("host");
    const events: AgentEvent[] = [];
    let hostSpan: HostSpan | undefined;
    await host.startActiveSpan("host.request", async (span) => {
      hostSpan = span;
      const stream = agent.stream(PROMPT, { onApproval: (request) => request.approve() });
      for await (const event of stream) events.push(event);
      await stream.result();
      span.end();
    });
    const spans = exporter.getFinishedSpans();
    const hostId = hostSpan!.spanContext().spanId;
    const traceId = hostSpan!.spanContext().traceId;

    const run = one(spans, "adaptor.run");
    expect(parentOf(run)).toBe(hostId);
    expect(run.spanContext().traceId).toBe(traceId);
    expect(run.attributes).toMatchObject({
      "adaptor.driver": "claude",
      "adaptor.verdict": "ok",
      "gen_ai.response.model": expect.any(String),
      "gen_ai.usage.input_tokens": expect.any(Number),
      "gen_ai.usage.output_tokens": expect.any(Number),
      "adaptor.run.id": events[0]?.meta.runId,
    });
    expect(run.attributes["adaptor.cost.usd"]).toEqual(expect.any(Number));

    const spawn = one(spans, "adaptor.spawn");
    expect(parentOf(spawn)).toBe(run.spanContext().spanId);
    expect(spawn.attributes["process.pid"]).toEqual(expect.any(Number));

    const tool = one(spans, "adaptor.tool_call");
    expect(parentOf(tool)).toBe(run.spanContext().spanId);
    expect(tool.attributes).toMatchObject({ "gen_ai.tool.name": "Bash", "adaptor.tool.is_error": false });
    const callId = tool.attributes["gen_ai.tool.call.id"];
    expect(callId).toEqual(expect.any(String));

    const approval = one(spans, "adaptor.approval");
    expect(parentOf(approval)).toBe(tool.spanContext().spanId);
    expect(approval.attributes).toMatchObject({
      "adaptor.approval.kind": "permission",
      "adaptor.approval.decision": "approve",
      "gen_ai.tool.name": "Bash",
      "gen_ai.tool.call.id": callId,
    });
    expect(approval.attributes["adaptor.approval.waited_ms"]).toEqual(expect.any(Number));

    // Every span of the run is in the host's trace and ended; none carries the prompt or the tool input.
    for (const span of spans) expect(span.spanContext().traceId).toBe(traceId);
    const text = JSON.stringify(spans.map((s) => s.attributes));
    expect(text).not.toContain("trace context please");
    expect(text).not.toContain("tp=$TRACEPARENT");

    // The CLI got the run span's W3C trace context in its environment (its Bash tool inherited it).
    const toolResult = h.server.requests.at(-1)?.view.lastToolResult?.content ?? "";
    expect(toolResult).toContain(`tp=00-${traceId}-${run.spanContext().spanId}-01`);
  });

  it("with no tracer provider registered nothing is recorded and the CLI gets no TRACEPARENT", async () => {
    h = await harness(
      [
        {
          when: whenUserSays("print the trace"),
          reply: { toolUse: { name: "Bash", input: { command: 'echo "tp=[$TRACEPARENT]"', description: "print" } } },
        },
        { when: whenToolResult("Bash"), reply: { text: "printed" } },
      ],
      { askForEveryTool: true },
    );
    const result = await h.agent.run(PROMPT, { onApproval: (request) => request.approve() });
    expect(result.text).toBe("printed");
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(trace.getActiveSpan()).toBeUndefined();
    expect(h.server.requests.at(-1)?.view.lastToolResult?.content).toContain("tp=[]");
  });
});
