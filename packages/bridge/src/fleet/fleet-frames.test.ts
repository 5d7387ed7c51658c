import { describe, expect, it } from "vitest";
import { Result } from "adaptor";
import type { BridgeFleetEvent } from "./bridge-fleet.js";
import { AG_UI_FRAMES_PER_EVENT, FleetFrames } from "./fleet-frames.js";

const RUN = "0192f0a0-0000-7000-8000-0000000000aa";
const meta = (sequence: number) => ({ runId: "sdk-run", sequence, time: "2026-12-04T10:00:00.000Z" });
/** A stored log: attempt 1 lost mid-text and mid-tool-call, attempt 2 with text and a tool result the provider named no message for. */
const LOG: BridgeFleetEvent[] = [
  { type: "attempt-started", attempt: 1, worker: "w1" },
  { type: "run-started", driver: "codex", meta: meta(1) },
  { type: "text-delta", text: "first try", meta: meta(2) },
  { type: "tool-call", id: "t1", name: "shell", phase: "start", meta: meta(3) },
  { type: "attempt-started", attempt: 2, worker: "w2" },
  { type: "run-started", driver: "codex", meta: meta(1) },
  { type: "text-delta", text: "second ", meta: meta(2) },
  { type: "tool-call", id: "t2", name: "shell", phase: "end", input: { command: "ls" }, meta: meta(3) },
  { type: "tool-result", id: "t2", output: "a b", meta: meta(4) },
  { type: "text-delta", text: "try", meta: meta(5) },
  { type: "run-finished", ok: true, meta: meta(6) },
  { type: "verdict", verdict: { kind: "result" } },
].map((event, index) => ({ sequence: index + 1, attempt: 1, recordedAt: "2026-12-04T10:00:01.000Z", event }));

const frames = (protocol: "raw" | "ag-ui") =>
  new FleetFrames({
    protocol,
    runId: RUN,
    threadId: "thread-1",
    agUiRunId: "run-1",
    secrets: () => [],
    verdict: async () => ({
      ok: true,
      result: new Result({ runId: RUN, text: "second try", durationMs: 1, raw: { stdout: "", stderr: "" }, transcript: [] }),
    }),
  });

async function encodeAll(protocol: "raw" | "ag-ui") {
  const encoder = frames(protocol);
  const out = [];
  for (const stored of LOG) out.push(...(await encoder.frames(stored)));
  return out;
}

describe("fleet frames", () => {
  it("ag-ui: two front-ends encoding the same stored log send the same frames, ids from the sequences, message ids derived from them", async () => {
    const a = await encodeAll("ag-ui");
    const b = await encodeAll("ag-ui");
    expect(b).toEqual(a);
    const events = a.map(
      (f) => JSON.parse(f.text.split("data: ")[1]!) as { type: string; name?: string; messageId?: string; toolCallId?: string },
    );
    expect(events.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "STATE_DELTA",
      "CUSTOM",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START",
      // attempt 2 closes what attempt 1 left open
      "TOOL_CALL_END",
      "CUSTOM",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(events[8]).toMatchObject({ name: "adaptor.attempt-started" });
    expect(events.find((e) => e.type === "TOOL_CALL_RESULT")?.messageId).toBe(`${RUN}-9-1`);
    expect(a[0]!.id).toBe(1 * AG_UI_FRAMES_PER_EVENT);
    expect(a.at(-1)!.id).toBe(12 * AG_UI_FRAMES_PER_EVENT + 1);
    const ids = a.map((f) => f.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("raw: ids are the stored sequences; the SDK's run-finished goes out at the verdict's sequence, with the verdict", async () => {
    const out = await encodeAll("raw");
    expect(out.map((f) => f.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12]);
    expect(JSON.parse(out.at(-1)!.text.split("data: ")[1]!)).toMatchObject({ type: "run-finished", ok: true });
    expect(JSON.parse(out[4]!.text.split("data: ")[1]!)).toEqual({ type: "attempt-started", attempt: 2, worker: "w2" });
  });
});
