import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { MAX_SESSION_MESSAGE_BYTES, MAX_SESSION_PAGE_BYTES } from "@adaptor/driver/kit";
import { ReplayedMessages } from "./replayed-messages.js";

// The byte caps of a page of an ACP agent's replayed history: a message keeps at most the
// message cap, and a page ends early, after at least one message, once it holds the page cap.

const said = (sessionUpdate: "user_message_chunk" | "agent_message_chunk", text: string, messageId: string): acp.SessionUpdate => ({
  sessionUpdate,
  content: { type: "text", text },
  messageId,
});
const call = (toolCallId: string, command: string): acp.SessionUpdate => ({
  sessionUpdate: "tool_call",
  toolCallId,
  title: "run",
  kind: "execute",
  status: "pending",
  rawInput: { command },
});
const done = (toolCallId: string, output: string): acp.SessionUpdate => ({
  sessionUpdate: "tool_call_update",
  toolCallId,
  status: "completed",
  content: [{ type: "content", content: { type: "text", text: output } }],
});

/** Six messages of 40 bytes of text each: a user prompt and an answer, three times over. */
const HISTORY: acp.SessionUpdate[] = [1, 2, 3, 4, 5, 6].flatMap((n) => [
  said(n % 2 === 1 ? "user_message_chunk" : "agent_message_chunk", "a".repeat(20), `m-${n}`),
  said(n % 2 === 1 ? "user_message_chunk" : "agent_message_chunk", "b".repeat(20), `m-${n}`),
]);

function replay(offset: number, limit: number, caps: { message: number; page: number }, updates = HISTORY) {
  const replayed = new ReplayedMessages(() => "run", offset, limit, caps);
  for (const update of updates) replayed.add(update);
  return replayed.done();
}

describe("replayed messages: byte caps", () => {
  it("the caps are the ones a Claude Code transcript page is read with: 16 MiB a message, 64 MiB a page", () => {
    expect([MAX_SESSION_MESSAGE_BYTES, MAX_SESSION_PAGE_BYTES]).toEqual([16 * 1024 * 1024, 64 * 1024 * 1024]);
  });

  it("a page ends after the message that takes it to the page cap, and the next page begins at the next message", () => {
    const first = replay(0, 100, { message: 1000, page: 100 });
    expect(first.messages.map((message) => message.id)).toEqual(["m-1", "m-2", "m-3"]);
    expect(first.next).toBe(3);
    const second = replay(3, 100, { message: 1000, page: 100 });
    expect(second.messages.map((message) => message.id)).toEqual(["m-4", "m-5", "m-6"]);
    expect(second.next).toBeUndefined();
    // Without the caps in the way the limit alone pages.
    expect(replay(0, 4, { message: 1000, page: 1000 })).toMatchObject({ next: 4 });
  });

  it("a message longer than the page cap is a page of its own; a message keeps no content past the message cap", () => {
    expect(replay(0, 100, { message: 1000, page: 10 }).messages.map((message) => message.id)).toEqual(["m-1"]);
    const cut = replay(0, 100, { message: 30, page: 1000 });
    expect(cut.messages.map((message) => message.text)).toEqual(Array(6).fill("a".repeat(20)));
    expect(cut.next).toBeUndefined();
  });

  it("tool inputs and outputs count: an output past the message cap is left out, the call kept", () => {
    const updates = [
      said("user_message_chunk", "go", "m-1"),
      call("c-1", "ls"),
      done("c-1", "x".repeat(100)),
      said("user_message_chunk", "next", "m-3"),
    ];
    const page = replay(0, 100, { message: 50, page: 1000 }, updates);
    expect(page.messages).toEqual([
      { role: "user", text: "go", id: "m-1" },
      { role: "assistant", text: "", toolCalls: [{ toolCallId: "c-1", toolName: "run", input: { command: "ls" } }] },
      { role: "user", text: "next", id: "m-3" },
    ]);
    const roomy = replay(0, 100, { message: 1000, page: 1000 }, updates);
    expect(roomy.messages[1]!.toolResults).toEqual([{ toolCallId: "c-1", output: "x".repeat(100), isError: false }]);
  });
});
