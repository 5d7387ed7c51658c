import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { askTwice, sendOnOneConnection, trickleBody } from "./raw-socket.js";
import { postJson, rawRequest, readUntil, referenceAgent, serve, sseMessages, type Served } from "./support.js";

// What the bridge refuses before a run starts or an approval is answered: cross-site requests
// (no JSON content type, a foreign Origin), malformed paths, headers, answers and prompts.

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

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

  it("a path with dot segments or a backslash is 400 and starts no run, so a guard in front that reads the raw path sees what the bridge serves", async () => {
    served = await serve({ runner: referenceAgent(), basePath: "/api/" });
    const { port } = new URL(served.url);
    const send = (path: string): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        // The path as written: a URL string would be normalised by the client first.
        const req = httpRequest(
          { host: "127.0.0.1", port, path, method: "POST", headers: { "content-type": "application/json" } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (chunk: Buffer) => chunks.push(chunk));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
          },
        );
        req.on("error", reject);
        req.end(JSON.stringify({ prompt: "hi" }));
      });
    for (const path of [
      "/api/./runs",
      "/x/../api/runs",
      "/api/runs/.",
      "/api/%2e/runs",
      "/api/x/%2E%2E/runs",
      "/api\\runs",
      "/api/runs/./",
    ]) {
      const answer = await send(path);
      expect([path, answer.status, answer.body]).toEqual([path, 400, expect.stringContaining('"code":"bad_request"')]);
      expect(answer.body).toContain("dot segment");
    }
    expect(served.settled).toHaveLength(0);
    expect((await send("/api/runs")).status).toBe(200);
  });

  it("a route with a trailing slash is no route (404, as an empty segment is): a live approval is not answered through approvals/<id>/ and no run starts", async () => {
    served = await serve({ runner: referenceAgent() });
    const { key, id } = await waitingApproval(served);
    const json = { "content-type": "application/json" };
    for (const [path, body] of [
      [`/approvals/${id}/`, { decision: "deny" }],
      [`/approvals//${id}`, { decision: "deny" }],
      ["/runs/", { prompt: "hi" }],
      ["/ag-ui/", { threadId: "t", runId: "r", messages: [{ id: "m", role: "user", content: "hi" }] }],
      [`/runs/${key}/cancel/`, {}],
      [`/runs/${key}/interrupt/`, {}],
    ] as const) {
      const answer = await rawRequest(served.url, path, { headers: json, body: JSON.stringify(body) });
      expect([path, answer]).toEqual([path, { status: 404, body: { error: { code: "not_found", message: "no such route" } } }]);
    }
    expect(await rawRequest(served.url, `/runs/${key}/events/`, { method: "GET" })).toMatchObject({ status: 404 });
    expect(served.bridge.size).toBe(1);
    // The approval still waits, answered at its own path.
    const answered = await rawRequest(served.url, `/approvals/${id}`, { headers: json, body: JSON.stringify({ decision: "approve" }) });
    expect(answered).toMatchObject({ status: 200, body: { id } });
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

  it("a Last-Event-ID beyond the run's newest frame is 400 bad_request, not a stream that skips the frames in between", async () => {
    served = await serve({ runner: referenceAgent() });
    const { key, id, messages } = await waitingApproval(served);
    // The run waits on its approval: its newest frame is the approval request.
    const replayed = await readUntil(
      sseMessages(await fetch(`${served.url}/runs/${key}/events`)),
      (m) => m.data["type"] === "approval-request",
    );
    const head = Number(replayed.at(-1)!.id);
    for (const ahead of [head + 1, head + 20]) {
      const answer = await fetch(`${served.url}/runs/${key}/events`, { headers: { "last-event-id": String(ahead) } });
      expect([ahead, answer.status]).toEqual([ahead, 400]);
      expect(await answer.json()).toMatchObject({
        error: {
          code: "bad_request",
          message: expect.stringContaining(`Last-Event-ID ${ahead} is beyond run ${key}'s newest frame (${head})`),
        },
      });
    }
    // The run goes on; a client at the head gets every later frame.
    const atHead = sseMessages(await fetch(`${served.url}/runs/${key}/events`, { headers: { "last-event-id": String(head) } }));
    await rawRequest(served.url, `/approvals/${id}`, {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve" }),
    });
    const rest = await readUntil(atHead, (m) => m.data["type"] === "run-finished");
    expect(rest.map((m) => Number(m.id))).toEqual(rest.map((_, i) => head + 1 + i));
    expect(rest.at(-1)!.data).toMatchObject({ type: "run-finished", ok: true });
    await readUntil(messages, (m) => m.data["type"] === "run-finished");
    // A finished run: one past its last frame is refused too.
    const last = Number(rest.at(-1)!.id);
    const after = await fetch(`${served.url}/runs/${key}/events`, { headers: { "last-event-id": String(last + 1) } });
    expect(after.status).toBe(400);
    expect(await after.json()).toMatchObject({ error: { code: "bad_request" } });
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

describe("ids and slow bodies", () => {
  const agUiInput = (runId: string, threadId = "t"): Record<string, unknown> => ({
    threadId,
    runId,
    state: {},
    messages: [{ id: "m", role: "user", content: "hi" }],
    tools: [],
    context: [],
    forwardedProps: {},
  });

  it("an AG-UI runId or threadId that is empty, 900 kB long, or holds control characters (a runId: spaces) or is . or .. (no route could reach that run) is 400 invalid_id, and no run starts", async () => {
    served = await serve({ runner: referenceAgent() });
    const huge = "r".repeat(900_000);
    const cases: [string, Record<string, unknown>, string][] = [
      ["empty runId", agUiInput(""), "runId is empty"],
      ["900 kB runId", agUiInput(huge), "runId is 900000 characters long; the limit is 256"],
      ["257-character runId", agUiInput("r".repeat(257)), "runId is 257 characters long; the limit is 256"],
      ["runId with a newline", agUiInput("run\nx-injected: 1"), "runId may hold printable ASCII characters only (no spaces)"],
      ["runId with a space", agUiInput("my run"), "runId may hold printable ASCII characters only (no spaces)"],
      ["runId .", agUiInput("."), 'runId may not be "." (it names the run in the URLs of its routes)'],
      ["runId ..", agUiInput(".."), 'runId may not be ".." (it names the run in the URLs of its routes)'],
      ["empty threadId", agUiInput("r", ""), "threadId is empty"],
      ["900 kB threadId", agUiInput("r", huge), "threadId is 900000 characters long; the limit is 256"],
      ["threadId with a NUL", agUiInput("r", "t\u0000"), "threadId holds a control character or a lone UTF-16 surrogate"],
    ];
    for (const [name, input, message] of cases) {
      const answer = await postJson(`${served.url}/ag-ui`, input);
      expect([name, answer.status]).toEqual([name, 400]);
      expect([name, await answer.json()]).toEqual([name, { error: { code: "invalid_id", message } }]);
    }
    const raw = await postJson(`${served.url}/runs`, { prompt: "hi", threadKey: huge });
    expect(await raw.json()).toEqual({ error: { code: "invalid_id", message: "threadKey is 900000 characters long; the limit is 256" } });
    expect(served.settled).toEqual([]);
    expect(served.bridge.size).toBe(0);
    // The longest id that is allowed works.
    const longest = await postJson(`${served.url}/ag-ui`, agUiInput("r".repeat(256), "t".repeat(256)));
    expect(longest.status).toBe(200);
    await longest.body?.cancel();
  });

  it("a raw threadKey or AG-UI threadId the SDK's thread key rules refuse (whitespace only, a no-break space, a bidi control) is 400 invalid_id naming the rule, and no run starts", async () => {
    const agent = referenceAgent({ threadStore: new MemoryThreadStore() });
    served = await serve({ runner: ({ threadKey }) => (threadKey !== undefined ? agent.thread(threadKey) : agent) });
    const cases: [string, string, string][] = [
      ["a space", " ", "is whitespace only"],
      ["a no-break space", "\u00a0", "is whitespace only"],
      ["a right-to-left override", "abc\u202e", "contains the bidi control U+202E at index 3"],
      ["a first-strong isolate", "x\u2068y", "contains the bidi control U+2068 at index 1"],
    ];
    for (const [name, key, rule] of cases) {
      const raw = await postJson(`${served.url}/runs`, { prompt: "hi", threadKey: key });
      expect([name, raw.status, await raw.json()]).toEqual([name, 400, { error: { code: "invalid_id", message: `threadKey ${rule}` } }]);
      const agUi = await postJson(`${served.url}/ag-ui`, agUiInput("r", key));
      expect([name, agUi.status, await agUi.json()]).toEqual([name, 400, { error: { code: "invalid_id", message: `threadId ${rule}` } }]);
    }
    expect(served.settled).toEqual([]);
    expect(served.bridge.size).toBe(0);
    // A key with a no-break space inside is a key of its own.
    const fine = await postJson(`${served.url}/runs`, { prompt: "hi", threadKey: "a\u00a0b" });
    expect(fine.status).toBe(200);
    expect((await served.settledRun(fine.headers.get("x-adaptor-run-id")!)).error).toBeUndefined();
  });

  it("a thread key the host's runner function derives and agent.thread() refuses is 400 invalid_id, not 500 internal", async () => {
    const agent = referenceAgent({ threadStore: new MemoryThreadStore() });
    served = await serve({ runner: ({ threadKey }) => agent.thread(`chat:${threadKey ?? ""}`.padEnd(1100, "x")) });
    const raw = await postJson(`${served.url}/runs`, { prompt: "hi", threadKey: "k" });
    expect([raw.status, await raw.json()]).toEqual([
      400,
      { error: { code: "invalid_id", message: "invalid thread key: longer than 1024 bytes of UTF-8 (1100 UTF-16 units)" } },
    ]);
    expect(served.settled).toEqual([]);
  });

  it("a body trickled byte by byte is cut at bodyTimeoutMs with 408 request_timeout and the connection closed; no run starts", async () => {
    served = await serve({ runner: referenceAgent(), bodyTimeoutMs: 1_000 });
    const body = JSON.stringify({ prompt: "a prompt sent one byte at a time" });
    const socket = connect(Number(new URL(served.url).port), "127.0.0.1");
    socket.write(
      `POST /runs HTTP/1.1\r\nhost: ${new URL(served.url).host}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    let answer = "";
    let closed = false;
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("utf8")));
    socket.on("close", () => (closed = true));
    socket.on("error", () => undefined);
    // One byte every 250 ms would take about 8 s; the bridge answers after about one second.
    for (let sent = 0; sent < body.length && !closed && answer === ""; sent++) {
      socket.write(body[sent]!);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    try {
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toContain('"code":"request_timeout"');
      expect(answer.toLowerCase()).toContain("connection: close");
      while (!closed) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(served.bridge.size).toBe(0);
    } finally {
      socket.destroy();
    }
  });
});

// An answer sent before the body is read must not leave the connection open while the client
// trickles the rest: the connection closes after the answer, well within bodyTimeoutMs.
describe("a request answered before its body is read", () => {
  const trickledHead = (path: string, host: string) =>
    `POST ${path} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n`;

  it("a forbidden_host or not_found refusal of a trickled body closes the connection after the answer", async () => {
    served = await serve({ runner: referenceAgent(), bodyTimeoutMs: 1_000 });
    const url = new URL(served.url);
    for (const [head, status, code] of [
      [trickledHead("/runs", "evil.example"), 403, "forbidden_host"],
      [trickledHead("/nowhere", url.host), 404, "not_found"],
    ] as const) {
      // One byte every 200 ms: the whole body would take 100 s.
      const trickled = await trickleBody(Number(url.port), head, 500);
      expect(trickled.answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(trickled.answer).toContain(`"code":"${code}"`);
      expect(trickled.answer.toLowerCase()).toContain("connection: close");
      expect(trickled.closed).toBe(true);
      // bodyTimeoutMs (1 s) plus a generous margin for a loaded machine.
      expect(trickled.elapsedMs).toBeLessThan(6_000);
    }
    expect(served.bridge.size).toBe(0);
  });

  it("a refusal of a request without a body (GET, OPTIONS) closes its connection too", async () => {
    served = await serve({ runner: referenceAgent() });
    const url = new URL(served.url);
    for (const [request, status] of [
      [`GET /runs/x/events HTTP/1.1\r\nhost: evil.example\r\n\r\n`, 403],
      [`OPTIONS /runs HTTP/1.1\r\nhost: ${url.host}\r\norigin: https://evil.example\r\naccess-control-request-method: POST\r\n\r\n`, 404],
      [`GET /runs/x/events HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`, 404],
      [`GET /nowhere HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`, 404],
      [`GET /runs HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`, 405],
    ] as const) {
      expect([request, await askTwice(Number(url.port), request)]).toEqual([
        request,
        { status, connection: "close", second: undefined, open: false },
      ]);
    }
  });

  it("a request whose body the bridge reads keeps its connection alive for the next request", async () => {
    served = await serve({ runner: referenceAgent(), bodyTimeoutMs: 1_000 });
    const url = new URL(served.url);
    const cancel = `POST /runs/no-such-run/cancel HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}`;
    const { answers, open } = await sendOnOneConnection(Number(url.port), [cancel, cancel]);
    expect(answers).toHaveLength(2);
    for (const answer of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 404 /);
      expect(answer).toContain("no run no-such-run");
      expect(answer!.toLowerCase()).toContain("connection: keep-alive");
    }
    expect(open).toBe(true);
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
