import { randomUUID } from "node:crypto";
import { text as streamText } from "node:stream/consumers";
import { getHeapSnapshot } from "node:v8";
import { describe, expect, it } from "vitest";
import { AgentMessageLineReader } from "./agent-message-line.js";

/** A completed agent message as `codex exec --json` writes it. */
function messageLine(id: string, text: string): string {
  return JSON.stringify({ type: "item.completed", item: { id, type: "agent_message", text } });
}

/** A reader that learned the shape from `line`, parsed as the caller parses it. */
function learned(line: string): AgentMessageLineReader {
  const reader = new AgentMessageLineReader();
  reader.learn(line, JSON.parse(line) as Record<string, unknown>);
  return reader;
}

/**
 * Whether a string beginning with `prefix` + `id` is on this process's heap (a heap snapshot
 * collects garbage first, and names each string by its first characters). The needle is made after
 * the snapshot, so that it is not itself on the heap.
 */
async function onHeap(prefix: string, id: string): Promise<boolean> {
  const snapshot = await streamText(getHeapSnapshot());
  return snapshot.includes(prefix + id);
}

describe("AgentMessageLineReader", () => {
  it("reads the id and text of a completed agent message exactly as JSON.parse gives them, once it learned the shape", () => {
    const reader = learned(messageLine("item_0", "first"));
    for (const [id, text] of [
      ["item_3", "plain text"],
      ["msg_0123456789abcdef0123", 'a "quoted" text\nwith \\ escapes and \u00e9'],
      ["item_4", ""],
    ] as const) {
      expect(reader.read(messageLine(id, text))).toBe(true);
      expect({ id: reader.id, text: reader.text }).toEqual({ id, text });
    }
    expect(reader.read(JSON.stringify({ type: "item.completed", item: { id: "item_5", type: "reasoning", text: "x" } }))).toBe(false);
  });

  it("keeps no part of a line it read, so the stdout chunk the line was cut from can go while the turn waits", async () => {
    const reader = learned(messageLine("item_0", "first"));
    const id = randomUUID();
    // A decoded stdout chunk, as the run gets it, with the line cut from it (a slice: the values
    // read from it, an id longer than a slice V8 copies and a long text, are slices of the chunk too).
    const itemId = `msg_${"0123456789abcdef".repeat(2)}`;
    const text = "a text longer than the slices V8 copies ".repeat(4);
    const read = ((): boolean => {
      const chunk = `{"type":"turn.started","note":"chunk-${id}"}\n${messageLine(itemId, text)}\n`;
      const start = chunk.indexOf("\n") + 1;
      return reader.read(chunk.slice(start, chunk.length - 1));
    })();
    expect(read).toBe(true);
    expect({ id: reader.id, text: reader.text }).toEqual({ id: itemId, text });
    /^x$/.test("x"); // the engine keeps the last regular-expression subject (the line) until the next match
    expect(await onHeap("chunk-", id)).toBe(false);
    expect(reader.read(messageLine("item_9", "next"))).toBe(true);
    expect({ id: reader.id, text: reader.text }).toEqual({ id: "item_9", text: "next" });
  });

  it("finds the chunk on the heap while a slice of it is kept (the probe the test above relies on)", async () => {
    const id = randomUUID();
    const line = ((): string => {
      const chunk = `{"type":"turn.started","note":"chunk-${id}"}\n${messageLine(`msg_${"0123456789abcdef".repeat(2)}`, "text")}\n`;
      return chunk.slice(chunk.indexOf("\n") + 1, chunk.length - 1);
    })();
    expect(await onHeap("chunk-", id)).toBe(true);
    expect(line).toContain("agent_message");
  });
});
