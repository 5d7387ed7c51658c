// A model may name a tool with any text: the SDK carries a tool name at most 200 characters long
// (events, approvals, hooks' view of the events), and a span's gen_ai.tool.name also without control
// characters, so that a long name cannot grow every event, record and span that names the call.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent, type ApprovalRequest } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

/** What a hostile model names its tool: colours, a fake log line, then 2 MB. */
const HOSTILE = "Bash\u001b[31m\r\nFAKE-LOG-LINE " + "x".repeat(2_000_000);
const DELTAS = 500;

/** A driver reporting one call named `name` as Claude Code's partial messages do: start, one `args` per character, end; asked once. */
function hostileDriver(name: string) {
  return scriptedDriver(async (_request, sink) => {
    sink.emit({ type: "tool-call", phase: "start", id: "toolu_1", name });
    for (let i = 0; i < DELTAS; i++) sink.emit({ type: "tool-call", phase: "args", id: "toolu_1", name, argsDelta: "y" });
    await sink.requestApproval({
      kind: "permission",
      title: "Bash: echo",
      toolName: name,
      toolCallId: "toolu_1",
      input: { command: "echo" },
    });
    sink.emit({ type: "tool-call", phase: "end", id: "toolu_1", name, input: { command: "echo" } });
    sink.emit({ type: "tool-result", id: "toolu_1", name, output: "ok", isError: false });
    return { text: "done" };
  });
}

describe("a tool name the model chose is bounded wherever the SDK carries it", () => {
  it("every tool-call phase, the tool-result and the approval request carry the name's first 200 characters, so 500 args events stay small", async () => {
    const events: AgentEvent[] = [];
    const asked: ApprovalRequest[] = [];
    const stream = new Agent(hostileDriver(HOSTILE)).stream("go", {
      onApproval: (request) => {
        asked.push(request);
        request.approve();
      },
    });
    for await (const event of stream) events.push(event);
    expect((await stream.result()).text).toBe("done");
    const cut = HOSTILE.slice(0, 200);
    const calls = events.filter((e) => e.type === "tool-call");
    expect(calls.map((e) => e.phase)).toEqual(["start", ...Array<string>(DELTAS).fill("args"), "end"]);
    // Lengths first: a failure names the lengths, not megabytes of name.
    expect(new Set(calls.map((e) => e.name.length))).toEqual(new Set([200]));
    for (const call of calls) expect(call.name).toBe(cut);
    const result = events.find((e) => e.type === "tool-result");
    const resultName = result?.type === "tool-result" ? result.name : undefined;
    expect(resultName?.length).toBe(200);
    expect(resultName).toBe(cut);
    expect(asked.map((r) => r.toolName?.length)).toEqual([200]);
    expect(asked.map((r) => r.toolName)).toEqual([cut]);
    // The whole stream as JSON: a few hundred bytes per event, not the model's 2 MB name each time.
    expect(JSON.stringify(events).length).toBeLessThan(200_000);
  });

  it("a name of 200 characters or fewer is kept exactly; a cut never splits a surrogate pair", async () => {
    for (const [name, kept] of [
      ["mcp__docs__search", "mcp__docs__search"],
      ["n".repeat(200), "n".repeat(200)],
      ["n".repeat(199) + "😀" + "tail", "n".repeat(199)],
    ] as const) {
      const events: AgentEvent[] = [];
      const stream = new Agent(hostileDriver(name)).stream("go", { onApproval: (request) => request.approve() });
      for await (const event of stream) events.push(event);
      await stream.result();
      const names = [...new Set(events.flatMap((e) => (e.type === "tool-call" ? [e.name] : [])))];
      expect(names.map((n) => n.length)).toEqual([kept.length]);
      expect(names).toEqual([kept]);
    }
  });

  it("spans: the tool call's and the approval's gen_ai.tool.name are the bounded name without control characters", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const agent = new Agent(hostileDriver(HOSTILE), { telemetry: { tracer: provider.getTracer("adaptor") } });
    await agent.run("go", { onApproval: (request) => request.approve() });
    await agent.close();
    // The first 200 characters less ESC, CR and LF.
    const expected = "Bash[31mFAKE-LOG-LINE " + "x".repeat(175);
    const named = exporter
      .getFinishedSpans()
      .filter((span) => span.attributes["gen_ai.tool.name"] !== undefined)
      .map((span) => [span.name, span.attributes["gen_ai.tool.name"]]);
    expect(named.map(([span, name]) => [span, String(name).length])).toEqual([
      ["adaptor.approval", expected.length],
      ["adaptor.tool_call", expected.length],
    ]);
    expect(named).toEqual([
      ["adaptor.approval", expected],
      ["adaptor.tool_call", expected],
    ]);
  });
});
