import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { postJson, readUntil, referenceAgent, serve, sseMessages, type Served } from "./support.js";

// What the bridge refuses before a run starts or an approval is answered: cross-site requests
// (no JSON content type, a foreign Origin), malformed paths, headers, answers and prompts.

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** A raw HTTP request (fetch cannot send a malformed path or a POST without content type). */
function rawRequest(
  url: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method: init.method ?? "POST", headers: init.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, body: text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : { text } });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

/** Starts a run that waits for an approval; returns its key, the approval id and the rest of the stream. */
async function waitingApproval(s: Served): Promise<{ key: string; id: string; messages: ReturnType<typeof sseMessages> }> {
  const response = await postJson(`${s.url}/runs`, { prompt: "TOOL make" });
  const messages = sseMessages(response);
  const asked = (await readUntil(messages, (m) => m.data["type"] === "approval-request")).at(-1)!;
  return { key: response.headers.get("x-adaptor-run-id")!, id: String((asked.data["request"] as { id: string }).id), messages };
}

describe("cross-site request forgery", () => {
  it("a POST without a content type, or with a non-JSON one, is 415 on every POST route and starts no run", async () => {
    served = await serve({ runner: referenceAgent() });
    const { id, messages } = await waitingApproval(served);
    const body = JSON.stringify({ prompt: "hi" });
    for (const path of ["/runs", "/ag-ui", `/approvals/${id}`]) {
      for (const headers of <Record<string, string>[]>[
        {},
        { "content-type": "text/plain;charset=UTF-8" },
        { "content-type": "application/x-www-form-urlencoded" },
        { "content-type": "multipart/form-data; boundary=x" },
      ]) {
        const answer = await rawRequest(served.url, path, {
          headers,
          body: path.startsWith("/approvals") ? JSON.stringify({ decision: "approve" }) : body,
        });
        expect([path, answer.status, answer.body]).toMatchObject([path, 415, { error: { code: "unsupported_media_type" } }]);
      }
    }
    expect(served.bridge.size).toBe(1);
    // The approval is still waiting: a proper answer resolves it.
    expect((await postJson(`${served.url}/approvals/${id}`, { decision: "deny" })).status).toBe(200);
    await readUntil(messages, (m) => m.data["type"] === "run-finished");
  });

  it("a request from a foreign Origin is 403 without CORS headers; the bridge's own origin and CORS-allowed origins pass", async () => {
    served = await serve({ runner: referenceAgent(), cors: { origins: ["https://app.example"] } });
    const { id, messages } = await waitingApproval(served);
    const json = { "content-type": "application/json" };
    for (const origin of ["https://evil.example", "http://127.0.0.1:1", "null"]) {
      const run = await postJson(`${served.url}/runs`, { prompt: "hi" }, { headers: { ...json, origin } });
      expect(run.status).toBe(403);
      expect(run.headers.get("access-control-allow-origin")).toBeNull();
      expect(await run.json()).toMatchObject({ error: { code: "forbidden_origin" } });
      const answer = await postJson(`${served.url}/approvals/${id}`, { decision: "approve" }, { headers: { ...json, origin } });
      expect(answer.status).toBe(403);
    }
    expect(served.bridge.size).toBe(1);
    const own = await postJson(`${served.url}/approvals/${id}`, { decision: "deny" }, { headers: { ...json, origin: served.url } });
    expect(own.status).toBe(200);
    await readUntil(messages, (m) => m.data["type"] === "run-finished");
    const allowed = await postJson(`${served.url}/runs`, { prompt: "hi" }, { headers: { ...json, origin: "https://app.example" } });
    expect(allowed.status).toBe(200);
    await readUntil(sseMessages(allowed), (m) => m.data["type"] === "run-finished");
  });
});

describe("malformed input is a 400 before anything happens", () => {
  it("an approval's updatedInput that is not a plain object (string, array, null) is 400 and leaves the approval waiting", async () => {
    served = await serve({ runner: referenceAgent() });
    const { id, messages } = await waitingApproval(served);
    for (const updatedInput of ["rm -rf /", ["make"], null, 3]) {
      const answer = await postJson(`${served.url}/approvals/${id}`, { decision: "approve", updatedInput });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ error: { code: "bad_request" } });
    }
    const ok = await postJson(`${served.url}/approvals/${id}`, { decision: "approve", updatedInput: { command: "make all" } });
    expect(await ok.json()).toEqual({ id, status: "approved" });
    await readUntil(messages, (m) => m.data["type"] === "run-finished");
  });

  it("malformed percent-encoding in a path is 400, not 500", async () => {
    served = await serve({ runner: referenceAgent() });
    const json = { "content-type": "application/json" };
    const approval = await rawRequest(served.url, "/approvals/%ZZ", { headers: json, body: JSON.stringify({ decision: "approve" }) });
    expect(approval).toMatchObject({ status: 400, body: { error: { code: "bad_request" } } });
    const events = await rawRequest(served.url, "/runs/%E0%A4%A/events", { method: "GET" });
    expect(events).toMatchObject({ status: 400, body: { error: { code: "bad_request" } } });
  });

  it("Last-Event-ID must be a non-negative safe decimal integer: 1e3, 0x10, -1, 1.5 and 99999999999999999999 are 400", async () => {
    served = await serve({ runner: referenceAgent() });
    const response = await postJson(`${served.url}/runs`, { prompt: "hi" });
    const key = response.headers.get("x-adaptor-run-id")!;
    await readUntil(sseMessages(response), (m) => m.data["type"] === "run-finished");
    for (const value of ["1e3", "0x10", "-1", "1.5", "99999999999999999999", "1 2"]) {
      const answer = await fetch(`${served.url}/runs/${key}/events`, { headers: { "last-event-id": value } });
      expect([value, answer.status]).toEqual([value, 400]);
      expect(await answer.json()).toMatchObject({ error: { code: "bad_request" } });
    }
    const replay = await fetch(`${served.url}/runs/${key}/events`, { headers: { "last-event-id": "2" } });
    expect(replay.status).toBe(200);
    expect((await readUntil(sseMessages(replay), (m) => m.data["type"] === "run-finished"))[0]!.id).toBe("3");
  });

  it("a prompt with a lone surrogate is 400 on both protocols, and no run starts", async () => {
    served = await serve({ runner: referenceAgent() });
    const raw = await postJson(`${served.url}/runs`, { prompt: "cut \uD83D through an emoji" });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({ error: { code: "bad_request", message: expect.stringContaining("lone UTF-16 surrogate") } });
    const agUi = await postJson(`${served.url}/ag-ui`, {
      threadId: "t",
      runId: "r",
      state: {},
      messages: [{ id: "m", role: "user", content: "cut \uDE00 here" }],
      tools: [],
      context: [],
      forwardedProps: {},
    });
    expect(agUi.status).toBe(400);
    expect(served.settled).toEqual([]);
    expect(served.bridge.size).toBe(0);
  });
});

describe("a client disconnect", () => {
  it("ends a raw run with run-finished reason cancelled, as ag-ui's RUN_FINISHED outcome cancelled", async () => {
    served = await serve({ runner: referenceAgent(), reconnectGraceMs: 0 });
    const disconnect = new AbortController();
    const response = await postJson(`${served.url}/runs`, { prompt: "SLOW" }, { signal: disconnect.signal });
    const key = response.headers.get("x-adaptor-run-id")!;
    await readUntil(sseMessages(response), (m) => m.data["type"] === "run-started");
    disconnect.abort();
    await served.settledRun(key);
    const replay = await readUntil(sseMessages(await fetch(`${served.url}/runs/${key}/events`)), (m) => m.data["type"] === "run-finished");
    expect(replay.at(-1)!.data).toMatchObject({ type: "run-finished", ok: false, reason: "cancelled", message: "The client disconnected" });
  });
});
