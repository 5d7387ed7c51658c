import { describe, expect, it } from "vitest";
import type { Turn } from "../protocol/generated/v2/Turn.js";
import { turnMessages } from "./read-codex-messages.js";

// How a turn's items become messages once the model reply of each is known.

const command = (id: string, cmd: string): unknown => ({
  type: "commandExecution",
  id,
  command: cmd,
  cwd: "/w",
  status: "completed",
  aggregatedOutput: `${cmd}\n`,
  exitCode: 0,
});

const turn = (items: unknown[]): Turn => ({ id: "t", items, status: "completed" }) as unknown as Turn;

describe("turnMessages", () => {
  const items = [
    { type: "userMessage", id: "u", content: [{ type: "text", text: "go" }] },
    { type: "agentMessage", id: "m1", text: "first" },
    command("c1", "a"),
    command("c2", "b"),
    command("c3", "c"),
    { type: "agentMessage", id: "m2", text: "last" },
  ];
  const calls = (messages: ReturnType<typeof turnMessages>): [string, string[]][] =>
    messages.map((m) => [m.text, (m.toolCalls ?? []).map((call) => call.toolCallId)]);

  it("calls of one model reply stay one message; a call of a later reply begins a message of its own", () => {
    const replies = new Map([
      ["m1", 0],
      ["c1", 0],
      ["c2", 0],
      ["c3", 1],
      ["m2", 2],
    ]);
    expect(calls(turnMessages([turn(items)], replies))).toEqual([
      ["go", []],
      ["first", ["c1", "c2"]],
      ["", ["c3"]],
      ["last", []],
    ]);
  });

  it("without the replies (a rollout that cannot be read), a call stays with the message before it", () => {
    expect(calls(turnMessages([turn(items)]))).toEqual([
      ["go", []],
      ["first", ["c1", "c2", "c3"]],
      ["last", []],
    ]);
  });
});
