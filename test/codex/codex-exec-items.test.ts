import { describe, expect, it } from "vitest";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { Agent, type AgentEvent } from "adaptor";
import { codex } from "@adaptor/codex";

// The fake CLI plays `codex exec --json`: completed agent messages in codex's own shape (read
// without a parse once the first was parsed), in another key order, spaced (always parsed), with
// a field codex does not write today, and all of these mixed in one turn.

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;
const texts = Array.from({ length: 150 }, (_, i) => (i % 9 === 4 ? `q"${i}\\ é\n${"long text ".repeat(i % 5)}` : `t${i} `));

type Form = "codex" | "reordered" | "spaced" | "unknown field" | "mixed";

function itemLine(form: Form, text: string, i: number): string {
  const id = `item_${i}`;
  if (form === "mixed") return itemLine((["codex", "reordered", "unknown field", "codex", "spaced"] as const)[i % 5]!, text, i);
  if (form === "unknown field") return line({ type: "item.completed", item: { id, type: "agent_message", text, phase: "final" } });
  if (form === "codex") return line({ type: "item.completed", item: { id, type: "agent_message", text } });
  const reordered = { item: { text, type: "agent_message", id }, type: "item.completed" };
  return form === "reordered" ? line(reordered) : `${JSON.stringify(reordered, null, 1).replaceAll("\n", " ")}\n`;
}

async function execTurn(form: Form) {
  const body = texts.map((text, i) => itemLine(form, text, i)).join("");
  const steps: FakeCliStep[] = [
    { write: line({ type: "thread.started", thread_id: "t-exec" }) + line({ type: "turn.started" }) },
    { write: body },
    // A tool call between messages, then one more message and a line that is not JSON.
    {
      write:
        line({
          type: "item.started",
          item: { id: "item_c", type: "command_execution", command: "ls", aggregated_output: "", exit_code: null, status: "in_progress" },
        }) +
        line({
          type: "item.completed",
          item: { id: "item_c", type: "command_execution", command: "ls", aggregated_output: "a\n", exit_code: 0, status: "completed" },
        }) +
        itemLine(form, "last", 999) +
        "not json\n",
    },
    { write: line({ type: "turn.completed", usage: { input_tokens: 3, cached_input_tokens: 0, output_tokens: 5 } }) },
    { exit: 0 },
  ];
  const agent = new Agent(codex({ command: fakeCliPath, env: fakeCliEnv(steps), transport: "exec", killGraceMs: 300 }));
  try {
    const stream = agent.stream("go");
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    return {
      events: events.map((e) => ({ ...e, meta: undefined })),
      text: result.text,
      transcript: result.transcript(),
      usage: result.usage,
      terminal: result.raw().terminal,
    };
  } finally {
    await agent.close();
  }
}

describe("codex exec agent messages (fake CLI)", () => {
  it("messages in codex's shape, in another key order, spaced, with an unknown field or all mixed give the same events, transcript and result", async () => {
    const plain = await execTurn("codex");
    const deltas = plain.events.filter((e) => e.type === "text-delta");
    expect(deltas.map((e) => [e.text, e.messageId])).toEqual([...texts.map((text, i) => [text, `item_${i}`]), ["last", "item_999"]]);
    expect(plain.events.filter((e) => e.type === "dropped")).toEqual([]);
    expect(plain.text).toBe("last");
    expect(plain.transcript.filter((item) => item.kind === "assistant").map((item) => item.text)).toEqual([...texts, "last"]);
    expect(plain.transcript.map((item) => item.kind).slice(-3)).toEqual(["tool-call", "tool-result", "assistant"]);
    expect(plain.events).toContainEqual(expect.objectContaining({ type: "process", kind: "stdout", text: "not json" }));
    // Process ids differ from run to run: events that carry one are compared without it.
    const withoutPids = (turn: typeof plain) => ({ ...turn, events: turn.events.map((e) => ("pid" in e ? { ...e, pid: 0 } : e)) });
    expect(withoutPids(await execTurn("reordered"))).toEqual(withoutPids(plain));
    expect(withoutPids(await execTurn("spaced"))).toEqual(withoutPids(plain));
    expect(withoutPids(await execTurn("unknown field"))).toEqual(withoutPids(plain));
    expect(withoutPids(await execTurn("mixed"))).toEqual(withoutPids(plain));
  });
});

describe("codex exec transcript (fake CLI)", () => {
  it("a long turn's transcript is exactly the items a plain reader of the lines makes", async () => {
    // More messages than one packed run, a reasoning item and a tool call between them.
    const lines: string[] = [line({ type: "thread.started", thread_id: "t-long" }), line({ type: "turn.started" })];
    for (let i = 0; i < 700; i++) {
      lines.push(itemLine("codex", texts[i % texts.length]! + String(i), i));
      if (i === 300) lines.push(line({ type: "item.completed", item: { id: "item_r", type: "reasoning", text: "think é" } }));
      if (i === 500) {
        const command = {
          id: "item_c",
          type: "command_execution",
          command: "ls",
          aggregated_output: "a\n",
          exit_code: 0,
          status: "completed",
        };
        lines.push(
          line({ type: "item.started", item: { ...command, status: "in_progress" } }),
          line({ type: "item.completed", item: command }),
        );
      }
    }
    lines.push(line({ type: "turn.completed", usage: { input_tokens: 3, cached_input_tokens: 0, output_tokens: 5 } }));
    // The plain path: every line parsed, one item per completed message, reasoning and tool call.
    const plain: unknown[] = [];
    for (const text of lines) {
      const event = JSON.parse(text) as { type: string; item?: { id: string; type: string; text?: string } };
      const item = event.item;
      if (item?.type === "agent_message" && event.type === "item.completed") plain.push({ kind: "assistant", text: item.text });
      else if (item?.type === "reasoning") plain.push({ kind: "thinking", text: item.text });
      else if (item?.type === "command_execution" && event.type === "item.started")
        plain.push({ kind: "tool-call", toolCallId: item.id, toolName: "shell", input: { command: "ls" } });
      else if (item?.type === "command_execution")
        plain.push({ kind: "tool-result", toolCallId: item.id, toolName: "shell", text: "a\n", isError: false, exitCode: 0 });
    }
    const steps: FakeCliStep[] = [{ write: lines.join("") }, { exit: 0 }];
    const agent = new Agent(codex({ command: fakeCliPath, env: fakeCliEnv(steps), transport: "exec", killGraceMs: 300 }));
    try {
      const result = await agent.run("go");
      const transcript = result.transcript();
      expect(transcript).toStrictEqual(plain);
      expect(transcript.every((item) => Object.isFrozen(item))).toBe(true);
      expect(result.transcript()).toStrictEqual(transcript);
      expect(result.text).toBe(`${texts[699 % texts.length]!}699`);
    } finally {
      await agent.close();
    }
  });
});

describe("codex exec messages and the host's event buffer (fake CLI)", () => {
  const many = Array.from({ length: 700 }, (_, i) => `t${i} `);
  const steps = (): FakeCliStep[] => [
    { write: line({ type: "thread.started", thread_id: "t-buf" }) + line({ type: "turn.started" }) },
    // One write: the messages reach the driver in a few stdout chunks of hundreds of lines each.
    { write: many.map((text, i) => itemLine("codex", text, i)).join("") },
    { write: line({ type: "turn.completed", usage: { input_tokens: 3, cached_input_tokens: 0, output_tokens: 5 } }) },
    { exit: 0 },
  ];

  it("a host that keeps up loses no message even with a small event buffer: the driver waits for it when half the buffer waits", async () => {
    const agent = new Agent(codex({ command: fakeCliPath, env: fakeCliEnv(steps()), transport: "exec", killGraceMs: 300 }), {
      eventBuffer: 4,
    });
    try {
      const stream = agent.stream("go");
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      expect(events.filter((e) => e.type === "dropped")).toEqual([]);
      expect(events.filter((e) => e.type === "text-delta").map((e) => e.text)).toEqual(many);
      expect((await stream.result()).text).toBe(many[699]);
    } finally {
      await agent.close();
    }
  });

  it("a host that does not read while the turn runs does not hold the driver up: the turn ends, the messages over the buffer are reported dropped", async () => {
    const agent = new Agent(codex({ command: fakeCliPath, env: fakeCliEnv(steps()), transport: "exec", killGraceMs: 300 }), {
      eventBuffer: 4,
    });
    try {
      const stream = agent.stream("go");
      const result = await stream.result();
      expect(result.text).toBe(many[699]);
      expect(result.transcript()).toHaveLength(700);
      const events: AgentEvent[] = [];
      for await (const event of stream) events.push(event);
      const dropped = events.filter((e) => e.type === "dropped");
      const deltas = events.filter((e) => e.type === "text-delta");
      expect(dropped.length).toBeGreaterThan(0);
      expect(deltas.length + dropped.reduce((n, e) => n + (e.type === "dropped" ? (e.byType["text-delta"] ?? 0) : 0), 0)).toBe(700);
      expect(events.at(-1)?.type).toBe("run-finished");
    } finally {
      await agent.close();
    }
  });
});
