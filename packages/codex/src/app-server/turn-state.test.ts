import type { DriverEvent } from "@adaptor/driver";
import { describe, expect, it } from "vitest";
import { parseAppServerLine } from "./parse-line.js";
import { AppServerTurnState } from "./turn-state.js";

const THREAD = "019a0000-0000-7000-8000-000000000001";
const TURN = "019a0000-0000-7000-8000-100000000001";

const delta = (d: string, itemId = "msg_1", ids: { threadId?: string; turnId?: string } = {}, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ method: "item/agentMessage/delta", params: { threadId: THREAD, turnId: TURN, ...ids, itemId, delta: d }, ...extra });

/** A turn state whose thread and turn are known, and what it emitted. */
function turn(): { state: AppServerTurnState; events: DriverEvent[] } {
  const events: DriverEvent[] = [];
  const state = new AppServerTurnState((event) => events.push(event));
  state.threadId = THREAD;
  state.setTurnId(TURN);
  return { state, events };
}

/** The session's way: the direct read first, else parse and dispatch the notification. */
function feed(state: AppServerTurnState, line: string): "direct" | "parsed" {
  if (state.acceptLine(line)) return "direct";
  const message = parseAppServerLine(line) as { method: string; params: unknown };
  state.accept(message.method, message.params, line);
  return "parsed";
}

describe("AppServerTurnState.acceptLine", () => {
  const lines = [
    delta("one "),
    delta('esc "\\\n😀 ', "msg_1", {}, { emittedAtMs: 1796009019157 }),
    delta("other item", "msg_2"),
    delta("late", "msg_1", { turnId: "019a0000-0000-7000-8000-100000000000" }),
    delta("other thread", "msg_1", { threadId: "019a0000-0000-7000-8000-000000000002" }),
    JSON.stringify({ method: "item/agentMessage/delta", params: { delta: "reordered", itemId: "msg_1", turnId: TURN, threadId: THREAD } }),
    JSON.stringify({
      method: "item/completed",
      params: { threadId: THREAD, turnId: TURN, item: { type: "agentMessage", id: "msg_1", text: "t" } },
    }),
    JSON.stringify({
      method: "item/completed",
      params: { threadId: THREAD, turnId: TURN, item: { type: "agentMessage", id: "msg_3", text: "u" } },
    }),
  ];

  it("reads this turn's delta lines directly and emits what accept emits for their parsed value; every other line is left to the caller", () => {
    const direct = turn();
    const parsed = turn();
    expect(lines.map((line) => feed(direct.state, line))).toEqual([
      "direct",
      "direct",
      "direct",
      "parsed",
      "parsed",
      "parsed",
      "parsed",
      "parsed",
    ]);
    for (const line of lines) {
      const message = JSON.parse(line) as { method: string; params: unknown };
      parsed.state.accept(message.method, message.params, line);
    }
    expect(direct.events).toEqual(parsed.events);
    expect(direct.events).toEqual([
      { type: "text-delta", text: "one ", messageId: "msg_1" },
      { type: "text-delta", text: 'esc "\\\n😀 ', messageId: "msg_1" },
      { type: "text-delta", text: "other item", messageId: "msg_2" },
      { type: "text-delta", text: "reordered", messageId: "msg_1" },
      { type: "text-delta", text: "u", messageId: "msg_3" }, // msg_1 was streamed: its completed text is not repeated
    ]);
    expect([direct.state.dropped, parsed.state.dropped]).toEqual([1, 1]);
    expect(direct.state.transcript).toEqual(parsed.state.transcript);
  });

  it("reads nothing directly before the turn id is known: such lines are held by accept and replayed", () => {
    const events: DriverEvent[] = [];
    const state = new AppServerTurnState((event) => events.push(event));
    state.threadId = THREAD;
    expect(state.acceptLine(delta("early "))).toBe(false);
    state.accept("item/agentMessage/delta", (JSON.parse(delta("early ")) as { params: unknown }).params, delta("early "));
    expect(events).toEqual([]);
    state.setTurnId(TURN);
    expect(state.acceptLine(delta("then"))).toBe(true);
    expect(events.map((e) => (e.type === "text-delta" ? e.text : e.type))).toEqual(["early ", "then"]);
  });
});
