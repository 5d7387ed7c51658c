// The A2A server over a fleet streams a long answer as the local server does: the text deltas
// stored while the previous chunk was being recorded go out as one appended chunk, instead of one
// artifact update (and one write of the whole task) per stored delta.
import { TaskState } from "@a2a-js/sdk";
import { ServerCallContext } from "@a2a-js/sdk/server";
import { Fleet } from "@adaptor/fleet";
import { Agent } from "adaptor";
import { afterEach, describe, expect, it } from "vitest";
import { freshSchema, PG_URL, skipWithoutServer } from "../../fleet/test/support/pg.js";
import { a2aFleetServer, FLEET_RUN_METADATA_KEY } from "../src/index.js";
import { PostgresTaskStore } from "../src/postgres/index.js";
import { listen, manyDeltasDriver, numberedDelta, partsText, sdkClient, send, text } from "./support.js";

const DELTAS = 2_000;

if (!PG_URL) {
  skipWithoutServer("a2aFleetServer streaming chunks");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  describe("a2aFleetServer streaming many stored text deltas", () => {
    it("2,000 stored deltas reach the @a2a-js/sdk client whole and in order, in far fewer artifact updates than deltas", async () => {
      const schema = freshSchema("a2a_chunks");
      const fleet = new Fleet({ connectionString: url, schema });
      closers.push(() => fleet.close());
      await fleet.start();
      const agent = new Agent(manyDeltasDriver(DELTAS, true));
      closers.push(() => agent.close());
      await fleet.worker(agent);
      const taskStore = new PostgresTaskStore({ connectionString: url, schema: `${schema}_a2a` });
      closers.push(() => taskStore.close());
      await taskStore.migrate();
      const listening = await listen();
      closers.push(() => listening.close());
      const server = a2aFleetServer(fleet, {
        url: listening.url,
        card: { name: "Fleet", description: "Runs on the fleet's workers" },
        taskStore,
        threadKey: () => undefined,
      });
      closers.push(() => server.close());
      listening.handle(server.handler);
      const client = await sdkClient(listening.url);

      const expected = Array.from({ length: DELTAS }, (_, i) => numberedDelta(i)).join("");
      const chunks: { text: string; append: boolean; lastChunk: boolean }[] = [];
      let final: TaskState | undefined;
      let taskId = "";
      let runId = "";
      for await (const event of client.sendMessageStream(send([text("count")]))) {
        const payload = event.payload;
        if (payload?.$case === "task") {
          taskId = payload.value.id;
          runId = (payload.value.metadata?.[FLEET_RUN_METADATA_KEY] as { runId: string }).runId;
        }
        if (payload?.$case === "artifactUpdate")
          chunks.push({ text: partsText(payload.value.artifact?.parts), append: payload.value.append, lastChunk: payload.value.lastChunk });
        if (payload?.$case === "statusUpdate") final = payload.value.status?.state;
      }
      expect(final).toBe(TaskState.TASK_STATE_COMPLETED);
      // The fleet stored every delta as an event of its own.
      let stored = 0;
      for await (const e of fleet.handle(runId).events({ follow: false })) if (e.event.type === "text-delta") stored++;
      expect(stored).toBe(DELTAS);
      const streamed = chunks.slice(0, -1);
      expect(streamed.map((chunk) => chunk.text).join("")).toBe(expected);
      expect(streamed[0]?.append).toBe(false);
      expect(streamed.slice(1).every((chunk) => chunk.append && !chunk.lastChunk)).toBe(true);
      expect(chunks.at(-1)).toEqual({ text: expected, append: false, lastChunk: true });
      expect(streamed.length).toBeGreaterThan(0);
      expect(streamed.length).toBeLessThan(DELTAS / 10);
      // The stream recorded the whole answer and the terminal state after the chunks, in order: the
      // store holds them before any GetTask (which would bring the task up to date from the log).
      const recorded = await taskStore.load(taskId, new ServerCallContext());
      expect(recorded?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(partsText(recorded?.artifacts[0]?.parts)).toBe(expected);
      // The stored task holds the whole answer too.
      const task = await client.getTask({ tenant: "", id: taskId });
      expect(partsText(task.artifacts[0]?.parts)).toBe(expected);
    });
  });
}
