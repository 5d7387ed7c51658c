// A long answer of many small text deltas streams at the rate the agent produces it: the server
// sends the text that arrived while the previous chunk was being recorded as one appended chunk,
// instead of one artifact update (and one write of the whole task) per delta.
import { TaskState } from "@a2a-js/sdk";
import { Agent } from "adaptor";
import { afterEach, describe, expect, it } from "vitest";
import { manyDeltasDriver, numberedDelta, partsText, sdkClient, send, serve, text, type Served } from "./support.js";

const DELTAS = 20_000;

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe("streaming many small text deltas", () => {
  it("20,000 deltas reach the @a2a-js/sdk client whole and in order, in far fewer artifact updates than deltas", async () => {
    const agent = new Agent(manyDeltasDriver(DELTAS));
    served = await serve(agent);
    const client = await sdkClient(served.url);
    const expected = Array.from({ length: DELTAS }, (_, i) => numberedDelta(i)).join("");
    const chunks: { text: string; append: boolean; lastChunk: boolean }[] = [];
    let final: TaskState | undefined;
    let taskId = "";
    try {
      for await (const event of client.sendMessageStream(send([text("count")]))) {
        const payload = event.payload;
        if (payload?.$case === "task") taskId = payload.value.id;
        if (payload?.$case === "artifactUpdate")
          chunks.push({ text: partsText(payload.value.artifact?.parts), append: payload.value.append, lastChunk: payload.value.lastChunk });
        if (payload?.$case === "statusUpdate") final = payload.value.status?.state;
      }
    } finally {
      await agent.close();
    }
    expect(final).toBe(TaskState.TASK_STATE_COMPLETED);
    const streamed = chunks.slice(0, -1);
    expect(streamed.map((chunk) => chunk.text).join("")).toBe(expected);
    expect(streamed.slice(1).every((chunk) => chunk.append && !chunk.lastChunk)).toBe(true);
    expect(streamed[0]?.append).toBe(false);
    expect(chunks.at(-1)).toEqual({ text: expected, append: false, lastChunk: true });
    expect(streamed.length).toBeGreaterThan(1);
    expect(streamed.length).toBeLessThan(DELTAS / 20);
    // The stored task holds the whole answer too.
    const task = await client.getTask({ tenant: "", id: taskId });
    expect(partsText(task.artifacts[0]?.parts)).toBe(expected);
  });
});
