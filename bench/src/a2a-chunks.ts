// The server's cost of one streamed answer chunk as the answer grows: an `a2aServer` over HTTP, the
// official `@a2a-js/sdk` client streaming one task, the agent sending the next 20-byte delta only
// once the client received the one before (so every chunk is one delta). The process's CPU time per
// chunk (server and client, one process) is measured after the answer reached 10 kB and after it
// reached 1 MB; the ratio of the two is what a task store that copies the whole task per chunk
// makes grow with the answer.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { Role } from "@a2a-js/sdk";
import { InMemoryTaskStore, type TaskStore } from "@a2a-js/sdk/server";
import { ClientFactory } from "@a2a-js/sdk/client";
import { a2aServer } from "@adaptor/a2a";
import { PostgresTaskStore } from "@adaptor/a2a/postgres";
import type { Driver } from "@adaptor/driver";
import { REFERENCE_DESCRIPTOR } from "@adaptor/driver/testing";
import { Agent } from "adaptor";
import type { Benchmark, Figure } from "./harness.js";

/** One timed chunk's text: small, so that the timed chunks add little to the answer. */
const CHUNK = "x".repeat(20);
/** Chunks sent untimed at each answer length before the timed ones (the collection the long prefix caused, compilation). */
const UNTIMED = 100;
/** Chunks timed at each answer length (10 kB of answer: from 12 to 22 kB, and from 1,002 to 1,012 kB). */
const TIMED = 500;
/** Answer lengths the chunks are timed at. */
const SHORT = 10_000;
const LONG = 1_000_000;

/** Deltas the bench hands the agent one at a time; `undefined` ends the answer. */
class Deltas {
  #next: ((text: string | undefined) => void) | undefined;
  #queued: (string | undefined)[] = [];
  push(text: string | undefined): void {
    if (this.#next) {
      const next = this.#next;
      this.#next = undefined;
      next(text);
    } else this.#queued.push(text);
  }
  take(): Promise<string | undefined> {
    if (this.#queued.length > 0) return Promise.resolve(this.#queued.shift());
    return new Promise((resolve) => (this.#next = resolve));
  }
}

function steppedDriver(deltas: Deltas): Driver {
  return {
    descriptor: REFERENCE_DESCRIPTOR,
    validateConfig() {},
    async run(_request, sink) {
      let answer = "";
      for (let text = await deltas.take(); text !== undefined; text = await deltas.take()) {
        sink.emit({ type: "text-delta", text });
        answer += text;
      }
      return { text: answer, transcript: [], raw: { stdout: "", stderr: "" } };
    },
  };
}

/** Mean CPU ms per chunk of {@link TIMED} chunks after the answer reached `SHORT`, then `LONG` characters. */
async function perChunk(taskStore: TaskStore | undefined): Promise<{ short: number; long: number }> {
  const deltas = new Deltas();
  const agent = new Agent(steppedDriver(deltas));
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const server = a2aServer(agent, { url, card: { name: "bench", description: "bench" }, ...(taskStore ? { taskStore } : {}) });
  http.on("request", server.handler);
  try {
    const client = await new ClientFactory().createFromUrl(url);
    const stream = client.sendMessageStream({
      tenant: "",
      message: {
        messageId: randomUUID(),
        contextId: "",
        taskId: "",
        role: Role.ROLE_USER,
        parts: [{ content: { $case: "text", value: "go" }, metadata: undefined, filename: "", mediaType: "text/plain" }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    });
    let received = 0;
    /** Sends `text` and waits until the client received it. */
    const step = async (text: string) => {
      const until = received + text.length;
      deltas.push(text);
      while (received < until) {
        const { value, done } = await stream.next();
        if (done) throw new Error("the stream ended early");
        const payload = value.payload;
        if (payload?.$case === "artifactUpdate")
          for (const part of payload.value.artifact?.parts ?? []) if (part.content?.$case === "text") received += part.content.value.length;
      }
    };
    /** CPU time of this process (server and client) per chunk, in ms: less swayed by other processes than the wall time. */
    const timed = async () => {
      for (let i = 0; i < UNTIMED; i++) await step(CHUNK);
      const started = process.cpuUsage();
      for (let i = 0; i < TIMED; i++) await step(CHUNK);
      const used = process.cpuUsage(started);
      return (used.user + used.system) / 1_000 / TIMED;
    };
    await step("y".repeat(SHORT));
    const short = await timed();
    await step("y".repeat(LONG - received));
    const long = await timed();
    deltas.push(undefined);
    for await (const _ of stream) void _;
    return { short, long };
  } finally {
    await server.close();
    await agent.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }
}

/** `pnpm bench a2a`: the server's time per streamed chunk of a short and a long answer. */
export const a2aChunks: Benchmark = {
  name: "a2a server: CPU time per streamed 20-byte answer chunk at 10 kB and at 1 MB of answer",
  async run() {
    const figures: Figure[] = [];
    const stores: [string, () => Promise<TaskStore | undefined>][] = [
      ["default task store", async () => undefined],
      ["@a2a-js/sdk InMemoryTaskStore", async () => new InMemoryTaskStore()],
    ];
    const url = process.env.ADAPTOR_TEST_PG_URL;
    const opened: PostgresTaskStore[] = [];
    if (url) {
      stores.push([
        "PostgresTaskStore",
        async () => {
          const store = new PostgresTaskStore({ connectionString: url, schema: `bench_a2a_${opened.length}` });
          opened.push(store);
          await store.migrate();
          return store;
        },
      ]);
    } else process.stderr.write("bench: ADAPTOR_TEST_PG_URL not set, skipping PostgresTaskStore (run under scripts/with-postgres.sh)\n");
    try {
      await perChunk(undefined); // warm-up: the server, the client and the HTTP path all stores share
      for (const [name, store] of stores) {
        const { short, long } = await perChunk(await store());
        figures.push(
          { label: `${name}, CPU per chunk at 10 kB`, value: short * 1_000, unit: "µs", note: `mean of ${TIMED}` },
          { label: `${name}, CPU per chunk at 1 MB`, value: long * 1_000, unit: "µs", note: `mean of ${TIMED}` },
          { label: `${name}, 1 MB / 10 kB`, value: long / short, unit: "x", note: "baseline: the chunk at 10 kB, same run" },
        );
      }
    } finally {
      for (const store of opened) await store.close();
    }
    return figures;
  },
};
