import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import { afterEach, describe, expect, it } from "vitest";
import { AG_UI_CUSTOM_EVENTS } from "../src/index.js";
import { postJson, readUntil, referenceAgent, serve, sseMessages, type SseMessage, type Served } from "./support.js";

// Several clients following one run (two tabs, a phone and a laptop): each replays from its own
// Last-Event-ID, then gets every later frame and the verdict; an approval answered from any of
// them resolves once; one client over `maxWatchersPerRun` is refused with 429, nobody is dropped.

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const ids = (messages: readonly SseMessage[]) => messages.map((m) => Number(m.id));

describe("several clients on one run", () => {
  it("raw: a second client joins from its own Last-Event-ID; both see the approval, the later frames and the verdict; the second answer is 409", async () => {
    served = await serve({ runner: referenceAgent() });
    const first = await postJson(`${served.url}/runs`, { prompt: "TOOL deploy" });
    const key = first.headers.get("x-adaptor-run-id")!;
    const a = sseMessages(first);
    const aBefore = await readUntil(a, (m) => m.data["type"] === "approval-request");

    // The second client replays from the first frame on.
    const second = await fetch(`${served.url}/runs/${key}/events`, { headers: { "last-event-id": aBefore[0]!.id! } });
    expect(second.status).toBe(200);
    const b = sseMessages(second);
    const bBefore = await readUntil(b, (m) => m.data["type"] === "approval-request");
    expect(ids(bBefore)).toEqual(ids(aBefore).slice(1));
    const id = String((bBefore.at(-1)!.data["request"] as { id: string }).id);

    // Answered from the second client; the first one's answer comes second.
    expect((await postJson(`${served.url}/approvals/${id}`, { decision: "approve" })).status).toBe(200);
    const late = await postJson(`${served.url}/approvals/${id}`, { decision: "deny" });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: { code: string } }).error.code).toBe("approval_resolved");

    const aRest = await readUntil(a, (m) => m.data["type"] === "run-finished");
    const bRest = await readUntil(b, (m) => m.data["type"] === "run-finished");
    expect(aRest.at(-1)!.data).toMatchObject({ type: "run-finished", ok: true });
    expect(bRest.map((m) => [m.id, m.data])).toEqual(aRest.map((m) => [m.id, m.data]));
    expect(ids(aBefore.concat(aRest))).toEqual(ids(aBefore.concat(aRest)).map((_, i) => Number(aBefore[0]!.id) + i));
    expect((await served.settledRun(key)).result?.text).toBe("Done: ran deploy");
  });

  it("ag-ui: an @ag-ui/client run and a raw SSE follower of it both get the verdict; the follower answers the approval", async () => {
    served = await serve({ runner: referenceAgent() });
    const url = served.url;
    const runId = `run-${randomUUID()}`;
    const client = new HttpAgent({ url: `${url}/ag-ui`, initialMessages: [{ id: randomUUID(), role: "user", content: "TOOL npm test" }] });
    let follower: Promise<SseMessage[]> | undefined;
    const outcomes: string[] = [];
    const { newMessages } = await client.runAgent(
      { runId },
      {
        onCustomEvent: async ({ event }) => {
          if (event.name !== AG_UI_CUSTOM_EVENTS.approvalRequest) return;
          const request = event.value as { id: string };
          // A second tab follows the same run from its start, and answers from there.
          const response = await fetch(`${url}/runs/${runId}/events`, { headers: { "last-event-id": "0" } });
          expect(response.status).toBe(200);
          const messages = sseMessages(response);
          const seen = await readUntil(messages, (m) => m.data["name"] === AG_UI_CUSTOM_EVENTS.approvalRequest);
          expect((seen.at(-1)!.data["value"] as { id: string }).id).toBe(request.id);
          follower = readUntil(messages, (m) => m.data["type"] === "RUN_FINISHED" || m.data["type"] === "RUN_ERROR");
          expect((await postJson(`${url}/approvals/${request.id}`, { decision: "approve" })).status).toBe(200);
        },
        onRunFinishedEvent: ({ outcome }) => void outcomes.push(outcome),
      },
    );
    expect(outcomes).toEqual(["success"]);
    expect(newMessages.at(-1)).toMatchObject({ role: "assistant", content: "Done: ran npm test" });
    const rest = await follower!;
    expect(rest.at(-1)!.data).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" }, result: { text: "Done: ran npm test" } });
  });

  it("one client over maxWatchersPerRun is refused with 429 too_many_watchers; the clients following keep their streams, and a place freed is taken again", async () => {
    served = await serve({ runner: referenceAgent(), maxWatchersPerRun: 2 });
    const first = await postJson(`${served.url}/runs`, { prompt: "TOOL deploy" });
    const key = first.headers.get("x-adaptor-run-id")!;
    const a = sseMessages(first);
    await readUntil(a, (m) => m.data["type"] === "approval-request");
    const secondAbort = new AbortController();
    const second = await fetch(`${served.url}/runs/${key}/events`, { signal: secondAbort.signal });
    expect(second.status).toBe(200);
    const b = sseMessages(second);
    const bSeen = await readUntil(b, (m) => m.data["type"] === "approval-request");

    const third = await fetch(`${served.url}/runs/${key}/events`);
    expect(third.status).toBe(429);
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe("too_many_watchers");

    // The second client leaves; its place is free once the bridge saw it go.
    secondAbort.abort();
    await b.return(undefined).catch(() => undefined);
    let again: Response | undefined;
    for (let i = 0; i < 100 && again?.status !== 200; i++) {
      await again?.body?.cancel();
      again = await fetch(`${served.url}/runs/${key}/events`, { headers: { "last-event-id": bSeen.at(-1)!.id! } });
      if (again.status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(again!.status).toBe(200);
    const id = String((bSeen.at(-1)!.data["request"] as { id: string }).id);
    expect((await postJson(`${served.url}/approvals/${id}`, { decision: "approve" })).status).toBe(200);
    expect((await readUntil(a, (m) => m.data["type"] === "run-finished")).at(-1)!.data).toMatchObject({ ok: true });
    expect((await readUntil(sseMessages(again!), (m) => m.data["type"] === "run-finished")).at(-1)!.data).toMatchObject({ ok: true });
  });
});
