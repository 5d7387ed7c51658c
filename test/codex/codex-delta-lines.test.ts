import { describe, expect, it } from "vitest";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { Agent } from "adaptor";
import { codex } from "@adaptor/codex";

// The fake CLI plays codex app-server and writes 700 deltas (about 70 KiB) in one write, so they reach
// the driver in a few stdout chunks of hundreds of lines each.

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;
const handshake: FakeCliStep[] = [
  { awaitStdinLine: true }, // initialize
  { write: line({ id: 1, result: { userAgent: "fake", codexHome: "/x", platformFamily: "unix", platformOs: "linux" } }) },
  { awaitStdinLine: true }, // initialized
  { awaitStdinLine: true }, // thread/start
  { write: line({ id: 2, result: { thread: { id: "t-fake" }, model: "fake-model", modelProvider: "fake" } }) },
  { awaitStdinLine: true }, // turn/start
  { write: line({ id: 3, result: { turn: { id: "u-fake", status: "inProgress", items: [], error: null } } }) },
];

describe("codex app-server deltas and the host's event buffer (fake CLI)", () => {
  it("a host that keeps up loses no delta even with a small event buffer: a chunk's lines are handed over in step with its loop", async () => {
    const texts = Array.from({ length: 700 }, (_, i) => `t${i} `);
    const deltas = texts.map((delta) =>
      line({ method: "item/agentMessage/delta", params: { threadId: "t-fake", turnId: "u-fake", itemId: "m-1", delta } }),
    );
    const steps: FakeCliStep[] = [
      ...handshake,
      { write: deltas.join("") },
      {
        write: line({
          method: "item/completed",
          params: { threadId: "t-fake", turnId: "u-fake", item: { type: "agentMessage", id: "m-1", text: texts.join("") } },
        }),
      },
      {
        write: line({
          method: "turn/completed",
          params: { threadId: "t-fake", turn: { id: "u-fake", status: "completed", items: [], error: null } },
        }),
      },
      { awaitStdinEnd: true }, // codex exits 0 when its stdin closes
    ];
    const agent = new Agent(codex({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300 }), { eventBuffer: 4 });
    try {
      const stream = agent.stream("go");
      const events = [];
      for await (const event of stream) events.push(event);
      const result = await stream.result();
      expect(events.filter((e) => e.type === "dropped")).toEqual([]);
      expect(events.filter((e) => e.type === "text-delta").map((e) => e.text)).toEqual(texts);
      expect(result.text).toBe(texts.join(""));
    } finally {
      await agent.close();
    }
  });
});
