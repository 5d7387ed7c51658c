import { MemoryThreadStore } from "@adaptor/threadstore";
import type { Agent } from "adaptor";
import { afterEach, describe, expect, it } from "vitest";
import { postJson, readUntil, referenceAgent, serve, sseMessages, type Served } from "./support.js";

// A turn refused because another holder keeps the thread's lease: the error's own message names
// that holder (a host name, a process id) and its lease's expiry, which is for the host's logs.
// A client gets the code and a fixed message, the same on both protocols.

const HOLDER = "worker@db01.corp.internal pid=4242 run 01f0c0de";

let served: Served | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await served?.close();
  await agent?.close();
  served = undefined;
  agent = undefined;
});

async function busyBridge(): Promise<Served> {
  const store = new MemoryThreadStore();
  await store.acquireLease("k", HOLDER, 60_000);
  const a = referenceAgent({ threadStore: store });
  agent = a;
  served = await serve({ runner: ({ threadKey }) => a.thread(threadKey ?? "k") });
  return served;
}

describe("a busy thread over the bridge", () => {
  it("raw: run-finished says reason and code thread_busy with the message 'thread busy', never the holder or its expiry", async () => {
    const s = await busyBridge();
    const response = await postJson(`${s.url}/runs`, { prompt: "hi", threadKey: "k" });
    const finished = (await readUntil(sseMessages(response), (m) => m.data["type"] === "run-finished")).at(-1)!;
    expect(finished.data).toMatchObject({ ok: false, reason: "thread_busy", code: "thread_busy", message: "thread busy" });
    expect(JSON.stringify(finished.data)).not.toMatch(/db01|4242|held by|until/);
    const settled = await s.settledRun(response.headers.get("x-adaptor-run-id")!);
    expect((settled.error as Error).message).toContain(HOLDER);
  });

  it("ag-ui: RUN_ERROR says code thread_busy with the message 'thread busy', never the holder or its expiry", async () => {
    const s = await busyBridge();
    const response = await postJson(`${s.url}/ag-ui`, {
      threadId: "k",
      runId: "r1",
      messages: [{ id: "m", role: "user", content: "hi" }],
      tools: [],
      context: [],
    });
    const error = (await readUntil(sseMessages(response), (m) => m.data["type"] === "RUN_ERROR")).at(-1)!;
    expect(error.data).toMatchObject({ type: "RUN_ERROR", code: "thread_busy", message: "thread busy" });
    expect(JSON.stringify(error.data)).not.toMatch(/db01|4242|held by|until/);
  });
});
