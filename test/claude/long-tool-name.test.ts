// A model that names its tool with 100,000 characters, colours and a line break (real binary,
// scripted Anthropic server): every tool-call event of the call (start, each streamed args fragment,
// end) and its tool-result carry the same name, cut to 200 characters as Claude Code cuts it, and
// the call's span names the tool without control characters.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { whenUserSays } from "@adaptor/testkit";
import type { AgentEvent } from "adaptor";
import { harness, type Harness } from "./support.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  exporter.reset();
});

const LONG = "Bash\u001b[31m\r\nFAKE-LOG-LINE " + "x".repeat(100_000);

describe("a model's long tool name on a claude run", () => {
  it("start, args and end carry the same 200-character name; the span's gen_ai.tool.name has no control characters", async () => {
    h = await harness(
      [
        { when: whenUserSays("call the long tool"), reply: { toolUse: { name: LONG, input: { command: "echo hi" } } } },
        { when: () => true, reply: { text: "done" } },
      ],
      {},
      { telemetry: { tracer: provider.getTracer("adaptor") } },
    );
    const events: AgentEvent[] = [];
    const stream = h.agent.stream("call the long tool", { onApproval: (request) => request.approve() });
    for await (const event of stream) events.push(event);
    await stream.result();
    const calls = events.flatMap((e) => (e.type === "tool-call" ? [e] : []));
    expect(calls.map((c) => c.phase)).toContain("args");
    expect(calls.at(0)?.phase).toBe("start");
    expect(calls.at(-1)?.phase).toBe("end");
    // Lengths first: a failure names the lengths, not the model's 100 kB.
    expect([...new Set(calls.map((c) => c.name.length))]).toEqual([200]);
    expect([...new Set(calls.map((c) => c.name))]).toEqual([LONG.slice(0, 200)]);
    const names = exporter
      .getFinishedSpans()
      .filter((span) => span.name === "adaptor.tool_call")
      .map((span) => String(span.attributes["gen_ai.tool.name"]));
    expect(names.map((name) => name.length)).toEqual([197]);
    // The first 200 characters less ESC, CR and LF.
    expect(names).toEqual(["Bash[31mFAKE-LOG-LINE " + "x".repeat(175)]);
  });
});
