import { randomUUID } from "node:crypto";
import { text as streamText } from "node:stream/consumers";
import { getHeapSnapshot } from "node:v8";
import type { AnyMessage } from "@agentclientprotocol/sdk";
import { spawnCli } from "@adaptor/driver/process";
import { describe, expect, it } from "vitest";
import { messageStream } from "./message-stream.js";

// An agent that writes 300 `session/update` notifications and then one response, at once.
const SCRIPT = `
const update = (i) => JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: String(i) } } } });
const lines = [];
for (let i = 0; i < 300; i++) lines.push(update(i));
lines.push(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } }));
process.stdout.write(lines.join("\\n") + "\\n");
`;

describe("the ACP message stream's pacing", () => {
  it("each notification waits for pace before the SDK gets it; responses are not paced", async () => {
    await using child = await spawnCli({ command: process.execPath, args: ["-e", SCRIPT], device: "agent", killGraceMs: 500 });
    let paced = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let firstPaced!: () => void;
    const pacedOnce = new Promise<void>((resolve) => (firstPaced = resolve));
    const stream = messageStream(
      child,
      () => undefined,
      () => {
        paced++;
        if (paced > 1) return undefined;
        firstPaced();
        return gate; // the host has half its buffer waiting: the first notification waits
      },
    );
    const reader = stream.readable.getReader();
    let handed = false;
    const first = reader.read().then((next) => ((handed = true), next));
    await pacedOnce;
    expect([paced, handed]).toEqual([1, false]);
    release();
    const messages: AnyMessage[] = [(await first).value!];
    for (let next = await reader.read(); !next.done; next = await reader.read()) messages.push(next.value);
    expect(messages).toHaveLength(301);
    expect(messages.at(-1)).toMatchObject({ id: 1 });
    expect(paced).toBe(300);
  });
});

/**
 * Whether a string beginning with `prefix` + `id` is on this process's heap (a heap snapshot
 * collects garbage first, and names each string by its first characters). The needle is made after
 * the snapshot, so that it is not itself on the heap.
 */
async function onHeap(prefix: string, id: string): Promise<boolean> {
  const snapshot = await streamText(getHeapSnapshot());
  return snapshot.includes(prefix + id);
}

// An agent that writes two lines that are not JSON (a log), at once, then waits: the marker is
// made here from its argument, so that only the agent's stdout chunk begins with it.
const LOG_THEN_WAIT = `
process.stdout.write("chunk-" + process.argv[1] + " starting\\nthe agent's log line, longer than a short slice\\n");
setInterval(() => undefined, 60_000);
`;

describe("the ACP message stream's lines", () => {
  it("keeps no line that is not JSON while it waits for the next, so the stdout chunk it was cut from can go while the agent is quiet", async () => {
    const id = randomUUID();
    await using child = await spawnCli({ command: process.execPath, args: ["-e", LOG_THEN_WAIT, id], device: "agent", killGraceMs: 500 });
    let texts = 0;
    let logged!: () => void;
    const bothLogged = new Promise<void>((resolve) => (logged = resolve));
    const stream = messageStream(child, () => {
      if (++texts === 2) logged();
    });
    const reader = stream.readable.getReader();
    const pending = reader.read();
    await bothLogged;
    /^x$/.test("x"); // the engine keeps the last regular-expression subject until the next match
    expect(await onHeap("chunk-", id)).toBe(false);
    await reader.cancel();
    await pending;
  });
});
