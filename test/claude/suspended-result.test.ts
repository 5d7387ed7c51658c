import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { drainEvents, harness, type Harness } from "./support.js";

// A suspended turn's Result on the real claude binary (docs/suspend.md, "The verdict"): its text,
// usage, cost and transcript cover the model call that ran before the question.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a suspended claude turn's Result (real binary)", { timeout: 120_000 }, () => {
  it("carries the text, usage, cost and transcript of what ran before the question", async () => {
    let dir = "";
    h = await harness(
      [
        {
          when: whenUserSays("write the notes"),
          reply: () => ({
            text: "Let me write down the task.",
            toolUse: { name: "Write", input: { file_path: join(dir, "NOTES.md"), content: "x\n" } },
            usage: { input_tokens: 1200, output_tokens: 30 },
          }),
        },
        { when: whenToolResult("Write"), reply: { text: "done" } },
      ],
      { model: "claude-sonnet-4-5" },
      { threadStore: new MemoryThreadStore(), policy: { approvals: { permission: "ask" } } },
    );
    dir = h.env.workDir;
    const stream = h.agent.thread("notes").stream("write the notes", { suspend: {} });
    const events = await drainEvents(stream);
    const result = await stream.result();
    expect(result.status).toBe("suspended");
    expect(result.text).toBe("Let me write down the task.");
    expect(result.usage).toMatchObject({ inputTokens: 1200, outputTokens: 30 });
    expect(result.costUsd).toBeGreaterThan(0);
    const transcript = result.transcript();
    expect(transcript.some((item) => item.kind === "assistant" && item.text === "Let me write down the task.")).toBe(true);
    expect(transcript.some((item) => item.kind === "tool-call" && item.toolName === "Write")).toBe(true);
    const finished = events.at(-1);
    expect(finished).toMatchObject({ type: "run-finished", ok: true, suspended: true, usage: { inputTokens: 1200, outputTokens: 30 } });
  });
});
