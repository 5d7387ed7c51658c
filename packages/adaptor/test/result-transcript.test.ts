import { describe, expect, it } from "vitest";
import type { DriverResponse, TranscriptItem } from "@adaptor/driver";
import { TranscriptLog } from "@adaptor/driver/kit";
import { Agent, Result } from "adaptor";
import { scriptedDriver } from "./scripted-driver.js";

const ITEMS: TranscriptItem[] = [
  { kind: "assistant", text: "one" },
  { kind: "tool-call", toolCallId: "c1", toolName: "shell", input: { command: "ls" } },
  { kind: "tool-result", toolCallId: "c1", toolName: "shell", text: "a\n", isError: false },
  ...Array.from({ length: 600 }, (_, i): TranscriptItem => ({ kind: i % 50 === 7 ? "thinking" : "assistant", text: `t${i} ` })),
];

/** An Agent whose driver answers with `response()` as it is (not spread into another object). */
async function resultOf(response: () => DriverResponse): Promise<Result> {
  const driver = scriptedDriver(async () => ({}), { run: async () => response() });
  const agent = new Agent(driver);
  try {
    return await agent.run("go");
  } finally {
    await agent.close();
  }
}

describe("Result transcript", () => {
  it("a driver's transcript getter is read only when the host first asks, and gives what a plain array gives", async () => {
    let reads = 0;
    const log = new TranscriptLog();
    for (const item of ITEMS) {
      if (item.kind === "assistant" || item.kind === "thinking") log.text(item.kind, item.text!);
      else log.push({ ...item });
    }
    const lazy = await resultOf(() => ({
      text: "t599 ",
      raw: { stdout: "", stderr: "" },
      get transcript() {
        reads++;
        return log.items();
      },
    }));
    const plain = await resultOf(() => ({
      text: "t599 ",
      raw: { stdout: "", stderr: "" },
      transcript: ITEMS.map((item) => ({ ...item })),
    }));
    expect(reads).toBe(0);
    expect(lazy.transcript()).toStrictEqual(plain.transcript());
    expect(lazy.transcript()).toStrictEqual(ITEMS);
    expect(reads).toBe(1);
    expect(lazy.transcript().every((item) => Object.isFrozen(item))).toBe(true);
    expect(lazy.transcript()[1]).toBe(lazy.transcript()[1]);
  });

  it("a plain transcript array is copied when the Result is made", () => {
    const items: TranscriptItem[] = [{ kind: "assistant", text: "one" }];
    const result = new Result({ runId: "r", text: "one", durationMs: 1, raw: { stdout: "", stderr: "" }, transcript: items });
    items.push({ kind: "assistant", text: "two" });
    (items[0] as { text: string }).text = "changed";
    expect(result.transcript()).toStrictEqual([{ kind: "assistant", text: "one" }]);
  });

  it("a driver's raw stdout and stderr getters are read only when the host reads raw(), and give what plain strings give", async () => {
    let reads = 0;
    const counted = (text: string) => () => {
      reads++;
      return text;
    };
    const readStdout = counted("out é😀\n");
    const readStderr = counted("warn\n");
    const lazy = await resultOf(() => ({
      text: "done",
      transcript: [],
      raw: {
        get stdout() {
          return readStdout();
        },
        get stderr() {
          return readStderr();
        },
        stdoutBytes: 12,
        stderrBytes: 5,
        stdoutTruncated: false,
        stderrTruncated: false,
        terminal: { event: "result", json: "{}" },
      },
    }));
    const plain = await resultOf(() => ({
      text: "done",
      transcript: [],
      raw: {
        stdout: "out é😀\n",
        stderr: "warn\n",
        stdoutBytes: 12,
        stderrBytes: 5,
        stdoutTruncated: false,
        stderrTruncated: false,
        terminal: { event: "result", json: "{}" },
      },
    }));
    expect(reads).toBe(0);
    expect(lazy.raw()).toStrictEqual(plain.raw());
    expect({ ...lazy.raw() }).toStrictEqual({ ...plain.raw() });
    expect(Object.isFrozen(lazy.raw())).toBe(true);
    expect(reads).toBeGreaterThan(0);
  });
});
