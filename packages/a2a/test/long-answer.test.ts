// A long answer through the official @a2a-js/sdk client: 1 MB of text (multi-byte characters
// included) streams byte-exact in appended chunks, a reader that subscribes mid answer and the
// first reader both get all of it, and the task read back after completion is the streamed one.
import { TaskState, type Artifact, type StreamResponse, type Task, type TaskStatus } from "@a2a-js/sdk";
import { Agent } from "adaptor";
import { afterEach, describe, expect, it } from "vitest";
import { deltasDriver, partsText, sdkClient, send, serve, text, type Served } from "./support.js";

/** About 1 MB of answer in about 500 deltas of 1 to 4,001 characters (ASCII, accents, CJK, emoji). */
function longAnswer(): string[] {
  const pieces = ["plain ascii text; ", "accentuée à côté ", "漢字かな混じり文 ", "emoji 🙂🚀 pairs ", "\n"];
  const deltas: string[] = [];
  let length = 0;
  for (let i = 0; length < 1_000_000; i++) {
    const size = 1 + ((i * 7_919) % 4_001);
    let delta = `[${i}]`;
    while (delta.length < size) delta += pieces[(i + delta.length) % pieces.length];
    deltas.push(delta);
    length += delta.length;
  }
  return deltas;
}

/** A task as a streaming reader rebuilds it from the events it got (the SDK's rules for artifact updates). */
class StreamedTask {
  task: Task | undefined;
  /** Every chunk of the response artifact but the last, joined. */
  chunked = "";
  last: { text: string; append: boolean; lastChunk: boolean } | undefined;
  status: TaskStatus | undefined;

  apply(event: StreamResponse): void {
    const payload = event.payload;
    if (payload?.$case === "task") {
      this.task = payload.value;
      this.chunked = partsText(payload.value.artifacts[0]?.parts);
    } else if (payload?.$case === "statusUpdate") this.status = payload.value.status;
    else if (payload?.$case === "artifactUpdate") {
      const { artifact, append, lastChunk } = payload.value;
      const chunk = partsText(artifact?.parts);
      if (lastChunk) this.last = { text: chunk, append, lastChunk };
      else this.chunked = append ? this.chunked + chunk : chunk;
      const artifacts = this.task!.artifacts;
      const at = artifacts.findIndex((candidate) => candidate.artifactId === artifact!.artifactId);
      const next: Artifact =
        at !== -1 && append ? { ...artifacts[at]!, parts: [...artifacts[at]!.parts, ...artifact!.parts] } : (artifact as Artifact);
      if (at === -1) artifacts.push(next);
      else artifacts[at] = next;
    }
  }

  /** Characters of the response artifact streamed so far. */
  get received(): number {
    return this.chunked.length;
  }
}

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe("a 1 MB answer over A2A", () => {
  it("streams byte-exact in appended chunks, and the task read back after completion equals the streamed one", async () => {
    const deltas = longAnswer();
    const expected = deltas.join("");
    const agent = new Agent(deltasDriver(deltas));
    served = await serve(agent);
    const client = await sdkClient(served.url);
    const streamed = new StreamedTask();
    let chunks = 0;
    try {
      for await (const event of client.sendMessageStream(send([text("write a lot")]))) {
        streamed.apply(event);
        if (event.payload?.$case === "artifactUpdate") chunks++;
      }
    } finally {
      await agent.close();
    }
    expect(expected.length).toBeGreaterThanOrEqual(1_000_000);
    expect(streamed.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(streamed.chunked === expected).toBe(true);
    expect(streamed.last?.text === expected).toBe(true);
    expect(streamed.last).toMatchObject({ append: false, lastChunk: true });
    expect(chunks).toBeGreaterThan(2);

    const stored = await client.getTask({ tenant: "", id: streamed.task!.id });
    expect(partsText(stored.artifacts[0]?.parts) === expected).toBe(true);
    expect(stored.status).toEqual(streamed.status);
    expect(stored.artifacts).toEqual(streamed.task!.artifacts);
    expect({ id: stored.id, contextId: stored.contextId }).toEqual({ id: streamed.task!.id, contextId: streamed.task!.contextId });
    expect(stored.history.map((message) => partsText(message.parts))).toEqual(["write a lot"]);
  });

  it("a reader that subscribes mid answer and the first reader both get the whole answer byte-exact", async () => {
    const deltas = longAnswer();
    const expected = deltas.join("");
    const pauseAfter = Math.floor(deltas.length / 2);
    const half = deltas.slice(0, pauseAfter).join("").length;
    let open!: () => void;
    const gate = { pauseAfter, open: new Promise<void>((resolve) => (open = resolve)) };
    const agent = new Agent(deltasDriver(deltas, gate));
    served = await serve(agent);
    const client = await sdkClient(served.url);
    const first = new StreamedTask();
    const second = new StreamedTask();
    try {
      const stream = client.sendMessageStream(send([text("write a lot")]));
      // The first reader gets the first half: the run waits at the gate, every chunk sent is recorded.
      while (first.received < half) {
        const next = await stream.next();
        if (next.done) throw new Error("the stream ended before half the answer");
        first.apply(next.value);
      }
      expect(first.received).toBe(half);
      const subscription = client.resubscribeTask({ tenant: "", id: first.task!.id });
      const snapshot = await subscription.next();
      if (snapshot.done) throw new Error("the subscription ended at once");
      second.apply(snapshot.value);
      expect(second.received).toBe(half);
      open();
      await Promise.all([
        (async () => {
          for await (const event of { [Symbol.asyncIterator]: () => stream }) first.apply(event);
        })(),
        (async () => {
          for await (const event of { [Symbol.asyncIterator]: () => subscription }) second.apply(event);
        })(),
      ]);
    } finally {
      open();
      await agent.close();
    }
    for (const reader of [first, second]) {
      expect(reader.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(reader.chunked === expected).toBe(true);
      expect(reader.last?.text === expected).toBe(true);
    }
    const stored = await client.getTask({ tenant: "", id: first.task!.id });
    expect(partsText(stored.artifacts[0]?.parts) === expected).toBe(true);
  });
});
