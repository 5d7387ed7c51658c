import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { Agent, type AgentEvent, type AgentOptions, type Result, type Stream } from "adaptor";
import { claude } from "@adaptor/claude";

// Text-delta lines in the exact shape claude 2.1.332 writes them (read without a parse) and in
// other shapes (parsed): the same events either way, and a turn's boundaries hold for both.

const SESSION = "faafdc72-86fd-44e3-8500-4f233e1579e0";
const PROMPT_OTHER = "00000000-0000-4000-8000-0000000000ff";
const SESSION_OTHER = "0b7c2a51-3d4e-4f60-8a71-92b3c4d5e6f7";
const write = (text: string): FakeCliStep => ({ write: text + "\n" });
const line = (value: unknown): FakeCliStep => write(JSON.stringify(value));
/** A text-delta line as the CLI writes it (key order included). */
const delta = (text: string, extra: Record<string, unknown> = {}, index = 0): FakeCliStep =>
  line({
    type: "stream_event",
    event: { type: "content_block_delta", index, delta: { type: "text_delta", text } },
    session_id: SESSION,
    parent_tool_use_id: null,
    uuid: `u-${text.length}`,
    api_message_id: "msg-2",
    ...extra,
  });
const init = line({ type: "system", subtype: "init", session_id: SESSION, model: "fake-model" });
const assistant = (id: string, text: string): FakeCliStep =>
  line({
    type: "assistant",
    uuid: `uuid-${id}`,
    parent_tool_use_id: null,
    session_id: SESSION,
    message: { id, content: [{ type: "text", text }] },
  });
const result = (text: string): FakeCliStep =>
  line({
    type: "result",
    subtype: "success",
    is_error: false,
    result: text,
    session_id: SESSION,
    total_cost_usd: 0.1,
    usage: { input_tokens: 1, output_tokens: 1 },
  });

async function drain(stream: Stream): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** One run on a fake CLI that plays `steps`: its events and its result. */
async function fakeRun(steps: FakeCliStep[], options: AgentOptions = {}): Promise<{ events: AgentEvent[]; result: Result }> {
  const agent = new Agent(claude({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300 }), options);
  try {
    const stream = agent.stream("go");
    const events = await drain(stream);
    return { events, result: await stream.result() };
  } finally {
    await agent.close();
  }
}

describe("claude text-delta lines (fake CLI)", () => {
  it("deltas in the CLI's exact shape and in other shapes give the same events, in order; late ones stay out of the next turn", async () => {
    const steps: FakeCliStep[] = [
      { awaitStdinLine: true },
      init,
      assistant("msg-1", "one"),
      result("one"),
      delta("LATE"), // turn 1's late output, in the exact shape: not turn 2's
      { awaitStdinLine: true },
      init,
      line({ type: "stream_event", event: { type: "message_start", message: { id: "msg-2" } }, session_id: SESSION }),
      delta("Hel"),
      delta('lo "wor\\ld"\n', {}, 1),
      delta("é 😀"),
      // Other shapes: whitespace, another key order, no ids; parsed, the same events.
      write(
        `{"type": "stream_event", "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "spaced"}}}`,
      ),
      line({ event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "reordered" } }, type: "stream_event" }),
      delta(""), // empty: no event
      delta("tagged", { user_message_uuid: PROMPT_OTHER }), // another prompt's: dropped
      write(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"cut`), // not JSON: raw stdout
      delta("!"),
      assistant("msg-2", "ignored: streamed"),
      result("done"),
      { hang: true },
    ];
    const agent = new Agent(claude({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300 }), {
      threadStore: new MemoryThreadStore({ sessionState: false }),
    });
    try {
      const thread = agent.thread("deltas");
      expect((await thread.run("first")).text).toBe("one");
      const second = thread.stream("second");
      const events = await drain(second);
      await second.result();
      const deltas = events.filter((e) => e.type === "text-delta");
      expect(deltas.map((e) => [e.text, e.messageId])).toEqual(
        ["Hel", 'lo "wor\\ld"\n', "é 😀", "spaced", "reordered", "!"].map((text) => [text, "msg-2"]),
      );
      // Sequence numbers from 1 without a gap: nothing was dropped.
      expect(events.map((e) => e.meta.sequence)).toEqual(events.map((_, i) => i + 1));
      expect(events).toContainEqual(
        expect.objectContaining({ type: "notice", message: "output from an earlier turn dropped", data: { lines: { stream_event: 2 } } }),
      );
      expect(events).toContainEqual(
        expect.objectContaining({ type: "process", kind: "stdout", text: expect.stringContaining('"text":"cut') as string }),
      );
    } finally {
      await agent.close();
    }
  });
  it("deltas with their keys in another order give the same events and result as the CLI's order and as spaced (always parsed) lines", async () => {
    const texts = Array.from({ length: 120 }, (_, i) => (i % 7 === 3 ? `q"${i}\\ é\n` : `t${i} `));
    /** One delta line in the given form; the block index changes halfway, `api_message_id` from a third on. */
    const deltaIn = (form: "cli" | "reordered" | "spaced", text: string, i: number): string => {
      const index = i < 60 ? 0 : 1;
      const ids = { session_id: SESSION, parent_tool_use_id: null, uuid: `u-${i}`, ...(i >= 40 ? { api_message_id: "msg-2" } : {}) };
      const event = { type: "content_block_delta", index, delta: { type: "text_delta", text } };
      if (form === "cli") return JSON.stringify({ type: "stream_event", event, ...ids });
      const reordered = {
        ...ids,
        event: { delta: { text, type: "text_delta" }, index, type: "content_block_delta" },
        type: "stream_event",
      };
      return form === "reordered" ? JSON.stringify(reordered) : JSON.stringify(reordered, null, 1).replaceAll("\n", " ");
    };
    const turn = async (form: "cli" | "reordered" | "spaced") => {
      const body = texts.map((text, i) => deltaIn(form, text, i) + "\n").join("");
      const steps: FakeCliStep[] = [
        { awaitStdinLine: true },
        init,
        line({ type: "stream_event", event: { type: "message_start", message: { id: "msg-2" } }, session_id: SESSION }),
        { write: body },
        assistant("msg-2", "streamed"),
        result("done"),
        { hang: true },
      ];
      const { events, result: r } = await fakeRun(steps);
      return {
        deltas: events.filter((e) => e.type === "text-delta").map((e) => [e.text, e.messageId]),
        types: events.map((e) => e.type),
        text: r.text,
      };
    };
    const cli = await turn("cli");
    expect(cli.deltas).toEqual(texts.map((text) => [text, "msg-2"]));
    expect(await turn("reordered")).toEqual(cli);
    expect(await turn("spaced")).toEqual(cli);
  });
  it("stream events of another session (a misbehaving CLI) are dropped and counted, in the CLI's exact shape and in other shapes", async () => {
    const other = { session_id: SESSION_OTHER };
    const steps: FakeCliStep[] = [
      { awaitStdinLine: true },
      init,
      line({ type: "stream_event", event: { type: "message_start", message: { id: "msg-2" } }, session_id: SESSION }),
      delta("mine "),
      delta("theirs ", other), // the exact shape, read without a parse
      line({
        event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "theirs too" } },
        type: "stream_event",
        ...other,
      }),
      line({ type: "stream_event", event: { type: "message_start", message: { id: "msg-other" } }, ...other }),
      delta("still mine"),
      assistant("msg-2", "ignored: streamed"),
      result("done"),
      { hang: true },
    ];
    const { events, result: r } = await fakeRun(steps);
    expect(events.filter((e) => e.type === "text-delta").map((e) => [e.text, e.messageId])).toEqual([
      ["mine ", "msg-2"],
      ["still mine", "msg-2"],
    ]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "notice", message: "output of another session dropped", data: { lines: { stream_event: 3 } } }),
    );
    expect([r.text, r.sessionId]).toEqual(["done", SESSION]);
  });
  it("a host that keeps up loses no delta even with a small event buffer: lines are taken one at a time, in step with its loop", async () => {
    const texts = Array.from({ length: 300 }, (_, i) => `t${i} `);
    const body = texts.map((text) => (delta(text) as { write: string }).write).join("");
    const steps: FakeCliStep[] = [{ awaitStdinLine: true }, init, { write: body }, result("done"), { hang: true }];
    const { events } = await fakeRun(steps, { eventBuffer: 4 });
    expect(events.filter((e) => e.type === "dropped")).toEqual([]);
    expect(events.filter((e) => e.type === "text-delta").map((e) => e.text)).toEqual(texts);
  });
});
