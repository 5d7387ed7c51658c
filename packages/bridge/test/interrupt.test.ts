import { afterEach, describe, expect, it } from "vitest";
import { claude } from "@adaptor/claude";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { claudeTestEnv, startAnthropicServer, whenUserSays } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { postJson, readUntil, referenceAgent, serve, sseMessages, type Served } from "./support.js";

// `POST runs/<key>/interrupt`: the running turn stops as `stream.interrupt()` stops it, keeping the
// conversation (a thread's next turn continues after it), unlike cancel; refused with 422 where
// the agent cannot interrupt a turn.

const open: { close(): Promise<void> }[] = [];
let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
  for (const item of open.splice(0).reverse()) await item.close();
});

describe("interrupting a run over HTTP", () => {
  it("an agent that cannot interrupt is 422 interrupt_unsupported (the run goes on); an unknown run is 404, a body with fields 400", async () => {
    served = await serve({ runner: referenceAgent() });
    const response = await postJson(`${served.url}/runs`, { prompt: "SLOW" });
    const key = response.headers.get("x-adaptor-run-id")!;
    const messages = sseMessages(response);
    await readUntil(messages, (m) => m.data["type"] === "run-started");
    const refused = await postJson(`${served.url}/runs/${key}/interrupt`, {});
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("interrupt_unsupported");
    expect((await postJson(`${served.url}/runs/nope/interrupt`, {})).status).toBe(404);
    expect((await postJson(`${served.url}/runs/${key}/interrupt`, { now: true })).status).toBe(400);
    expect((await postJson(`${served.url}/runs/${key}/cancel`, {})).status).toBe(200);
    expect((await readUntil(messages, (m) => m.data["type"] === "run-finished")).at(-1)!.data).toMatchObject({
      ok: false,
      reason: "cancelled",
    });
  });

  it("real claude: the interrupted turn ends interrupted and the thread's next turn sees it", { timeout: 120_000 }, async () => {
    const server = await startAnthropicServer({
      rules: [
        // The interrupted prompt has no answer, so the next request may carry it in the same user message.
        { when: whenUserSays("follow up"), reply: { text: "following up" } },
        { when: whenUserSays("STOPME"), reply: { text: "a very long answer", delayMs: 60_000 } },
      ],
    });
    open.push(server);
    const env = await claudeTestEnv({ server });
    open.push({ close: () => env.cleanup() });
    const agent = new Agent(claude({ cwd: env.workDir, env: env.env, inheritEnv: false }), { threadStore: new MemoryThreadStore() });
    open.push(agent);
    served = await serve({ runner: ({ threadKey }) => agent.thread(threadKey ?? "default") });

    const first = await postJson(`${served.url}/runs`, { prompt: "STOPME please", threadKey: "chat" });
    const key = first.headers.get("x-adaptor-run-id")!;
    const messages = sseMessages(first);
    await readUntil(messages, (m) => m.data["type"] === "run-started");
    // Asked while the model is still answering: the bridge waits for the turn to start, then interrupts.
    for (let i = 0; i < 600 && !server.requests.some((r) => JSON.stringify(r.body).includes("STOPME")); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const interrupted = await postJson(`${served.url}/runs/${key}/interrupt`, {});
    expect(interrupted.status).toBe(200);
    expect(await interrupted.json()).toEqual({ key, interrupted: true });
    expect((await readUntil(messages, (m) => m.data["type"] === "run-finished")).at(-1)!.data).toMatchObject({
      ok: true,
      interrupted: true,
    });
    expect((await served.settledRun(key)).result?.status).toBe("interrupted");

    const second = await postJson(`${served.url}/runs`, { prompt: "follow up", threadKey: "chat" });
    await readUntil(sseMessages(second), (m) => m.data["type"] === "run-finished");
    const last = JSON.stringify(server.requests.at(-1)!.body);
    expect(last).toContain("follow up");
    expect(last).toContain("STOPME please");
  });
});
