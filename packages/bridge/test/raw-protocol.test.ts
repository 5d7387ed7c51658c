import { afterEach, describe, expect, it } from "vitest";
import { ApprovalRequest, RunError } from "adaptor";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { postJson, readUntil, referenceAgent, serve, sseMessages, type Served } from "./support.js";
import { wireApproval } from "../src/protocols/raw.js";

// The `raw` protocol through a plain fetch + eventsource-parser client, on the scripted reference driver.

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe("raw protocol: the SDK's events as SSE", () => {
  it("streams every event as JSON with id = its sequence, run-finished last, and names the run in a header", async () => {
    served = await serve({ runner: referenceAgent() });
    const response = await postJson(`${served.url}/runs`, { prompt: "hello bridge" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const runId = response.headers.get("x-adaptor-run-id");
    const messages = await readUntil(sseMessages(response), (m) => m.data["type"] === "run-finished");
    expect(messages[0]!.data).toMatchObject({ type: "run-started", driver: "reference", meta: { runId, sequence: 1 } });
    expect(messages.map((m) => Number(m.id))).toEqual(messages.map((m) => (m.data["meta"] as { sequence: number }).sequence));
    const text = messages
      .filter((m) => m.data["type"] === "text-delta")
      .map((m) => m.data["text"])
      .join("");
    expect(text).toBe("Reference reply #1: hello bridge");
    expect(messages.at(-1)!.data).toMatchObject({ type: "run-finished", ok: true });
    expect((await served.settledRun(runId!)).result?.text).toBe("Reference reply #1: hello bridge");
  });

  it("a threadKey for a runner that is an Agent (which runs no thread) is refused with 422 thread_unsupported, nothing run; a runner function that picks the thread runs it", async () => {
    const store = new MemoryThreadStore();
    const agent = referenceAgent({ threadStore: store });
    served = await serve({ runner: agent });
    const refused = await postJson(`${served.url}/runs`, { prompt: "hello", threadKey: "t-1" });
    expect(refused.status).toBe(422);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("thread_unsupported");
    expect(body.error.message).toContain('threadKey "t-1" would be ignored');
    expect(await store.resolve({ key: "t-1" })).toBeUndefined();
    // Without a threadKey the Agent runs the prompt.
    const plain = await postJson(`${served.url}/runs`, { prompt: "hello" });
    expect(plain.status).toBe(200);
    await readUntil(sseMessages(plain), (m) => m.data["type"] === "run-finished");
    await served.close();
    served = await serve({ runner: ({ threadKey }) => (threadKey ? agent.thread(threadKey) : agent) });
    const threaded = await postJson(`${served.url}/runs`, { prompt: "hello", threadKey: "t-1" });
    expect(threaded.status).toBe(200);
    const finished = await readUntil(sseMessages(threaded), (m) => m.data["type"] === "run-finished");
    expect(finished.at(-1)!.data).toMatchObject({ ok: true });
    expect((await store.resolve({ key: "t-1" }))?.key).toBe("t-1");
  });

  it("an approval crosses the wire: the client approves once with a POST, a second answer is 409, the tool result follows", async () => {
    served = await serve({ runner: referenceAgent() });
    const response = await postJson(`${served.url}/runs`, { prompt: "TOOL echo hi" });
    const messages = sseMessages(response);
    const [asked] = (await readUntil(messages, (m) => m.data["type"] === "approval-request")).slice(-1);
    const request = asked!.data["request"] as Record<string, unknown>;
    expect(request).toMatchObject({
      kind: "permission",
      title: "shell: echo hi",
      toolName: "shell",
      input: { command: "echo hi" },
      inputEditable: true,
      attempt: 1,
    });
    expect(typeof request["deadline"]).toBe("string");

    const approve = await postJson(`${served.url}/approvals/${String(request["id"])}`, { decision: "approve" });
    expect(approve.status).toBe(200);
    expect(await approve.json()).toEqual({ id: request["id"], status: "approved" });
    const again = await postJson(`${served.url}/approvals/${String(request["id"])}`, { decision: "deny", reason: "changed my mind" });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: "approval_resolved", status: "approved" } });

    const rest = await readUntil(messages, (m) => m.data["type"] === "run-finished");
    expect(rest.find((m) => m.data["type"] === "tool-result")!.data).toMatchObject({ output: "ran echo hi", isError: false });
    expect(rest.at(-1)!.data).toMatchObject({ ok: true });
  });

  it("an approval about a subagent's tool call names the delegation on the wire (parentToolCallId)", () => {
    const request = new ApprovalRequest({
      id: "a-1",
      runId: "r-1",
      kind: "permission",
      title: "Bash: touch x",
      toolName: "Bash",
      toolCallId: "toolu_2",
      parentToolCallId: "toolu_1",
      createdAt: new Date(0),
      attempt: 1,
    });
    expect(wireApproval(request)).toMatchObject({ toolCallId: "toolu_2", parentToolCallId: "toolu_1" });
  });

  it("a denial's reason reaches the tool result; unknown ids are 404, a wrong decision for the kind 422, a malformed answer 400", async () => {
    served = await serve({ runner: referenceAgent() });
    const messages = sseMessages(await postJson(`${served.url}/runs`, { prompt: "TOOL rm -rf build" }));
    const asked = (await readUntil(messages, (m) => m.data["type"] === "approval-request")).at(-1)!;
    const id = String((asked.data["request"] as { id: string }).id);
    expect((await postJson(`${served.url}/approvals/not-an-approval`, { decision: "approve" })).status).toBe(404);
    const mismatch = await postJson(`${served.url}/approvals/${id}`, { decision: "answer", choice: "yes" });
    expect(mismatch.status).toBe(422);
    expect(await mismatch.json()).toMatchObject({ error: { code: "approval_kind_mismatch" } });
    const malformed = await postJson(`${served.url}/approvals/${id}`, { decision: "maybe" });
    expect(malformed.status).toBe(400);
    expect((await postJson(`${served.url}/approvals/${id}`, { decision: "deny", reason: "not on my machine" })).status).toBe(200);
    const rest = await readUntil(messages, (m) => m.data["type"] === "run-finished");
    expect(rest.find((m) => m.data["type"] === "tool-result")!.data).toMatchObject({ output: "denied: not on my machine", isError: true });
  });

  it("the run's approval deadline still applies: after it passed, an answer is 410", async () => {
    served = await serve({ runner: referenceAgent({ policy: { approvals: { timeoutMs: 1_000, onTimeout: "continue" } } }) });
    const messages = sseMessages(await postJson(`${served.url}/runs`, { prompt: "TOOL sleep 1" }));
    const read = await readUntil(messages, (m) => m.data["type"] === "notice" && m.data["kind"] === "approval.resolved");
    const id = String((read.find((m) => m.data["type"] === "approval-request")!.data["request"] as { id: string }).id);
    expect((read.at(-1)!.data["data"] as { outcome: string }).outcome).toBe("timeout");
    const late = await postJson(`${served.url}/approvals/${id}`, { decision: "approve" });
    expect(late.status).toBe(410);
    expect(await late.json()).toMatchObject({ error: { code: "approval_expired", status: "expired" } });
    await readUntil(messages, (m) => m.data["type"] === "run-finished");
  });

  it("a client that disconnects mid-run cancels it (no grace); an answer after that is 410 while the run is retained", async () => {
    served = await serve({ runner: referenceAgent(), reconnectGraceMs: 0 });
    const disconnect = new AbortController();
    const response = await postJson(`${served.url}/runs`, { prompt: "TOOL make" }, { signal: disconnect.signal });
    const asked = (await readUntil(sseMessages(response), (m) => m.data["type"] === "approval-request")).at(-1)!;
    const id = String((asked.data["request"] as { id: string }).id);
    disconnect.abort();
    const settled = await served.settledRun(response.headers.get("x-adaptor-run-id")!);
    expect((settled.error as Error).name).toBe("AbortError");
    const late = await postJson(`${served.url}/approvals/${id}`, { decision: "approve" });
    expect(late.status).toBe(410);
    expect(await late.json()).toMatchObject({ error: { code: "approval_expired" } });
  });

  it("a failure's error event says the reason and a one-line message with credentials redacted, never a stack", async () => {
    served = await serve({ runner: referenceAgent() });
    const response = await postJson(`${served.url}/runs`, {
      prompt:
        "FAIL upstream refused key sk-ant-api03-abcdefghijklmnop with Authorization: Bearer abcdefghijklmnop123\n    at callModel (/srv/app/model.js:10:5)\n    at run (/srv/app/run.js:3:1)",
    });
    const finished = (await readUntil(sseMessages(response), (m) => m.data["type"] === "run-finished")).at(-1)!;
    expect(finished.data).toMatchObject({ ok: false, reason: "agent_error" });
    const message = String(finished.data["message"]);
    expect(message).toContain("upstream refused key [redacted]");
    expect(message).not.toMatch(/sk-ant|abcdefghijklmnop|\bat run\b|model\.js|\n/);
    const settled = await served.settledRun(response.headers.get("x-adaptor-run-id")!);
    expect(settled.error).toBeInstanceOf(RunError);
  });

  it("refuses bad requests with JSON errors before any run starts: 400, 404, 405, 413, 415", async () => {
    served = await serve({ runner: referenceAgent(), maxBodyBytes: 200 });
    const cases: [Promise<Response>, number, string][] = [
      [postJson(`${served.url}/runs`, { prompt: "" }), 400, "bad_request"],
      [postJson(`${served.url}/runs`, { prompt: "hi", model: "x" }), 400, "bad_request"],
      [
        fetch(`${served.url}/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" }),
        400,
        "bad_request",
      ],
      [
        fetch(`${served.url}/runs`, { method: "POST", headers: { "content-type": "text/plain" }, body: "hi" }),
        415,
        "unsupported_media_type",
      ],
      [postJson(`${served.url}/runs`, { prompt: "x".repeat(1_000) }), 413, "payload_too_large"],
      [fetch(`${served.url}/runs`), 405, "method_not_allowed"],
      [fetch(`${served.url}/elsewhere`), 404, "not_found"],
      [fetch(`${served.url}/runs/unknown-run/events`), 404, "not_found"],
    ];
    for (const [pending, status, code] of cases) {
      const response = await pending;
      expect(response.status).toBe(status);
      expect(await response.json()).toMatchObject({ error: { code } });
    }
    expect(served.settled).toEqual([]);
  });
  it("POST runs/<key>/cancel cancels a running run: the stream ends as cancelled with the reason, a second cancel says it was not running, an unknown key is 404", async () => {
    served = await serve({ runner: referenceAgent() });
    const response = await postJson(`${served.url}/runs`, { prompt: "SLOW" });
    const key = response.headers.get("x-adaptor-run-id")!;
    const messages = sseMessages(response);
    await readUntil(messages, (m) => m.data["type"] === "run-started");
    const cancel = await postJson(`${served.url}/runs/${key}/cancel`, { reason: "changed my mind" });
    expect(cancel.status).toBe(200);
    expect(await cancel.json()).toEqual({ key, cancelled: true });
    const end = await readUntil(messages, (m) => m.data["type"] === "run-finished");
    expect(end.at(-1)!.data).toMatchObject({ ok: false, reason: "cancelled", code: "cancelled" });
    expect((await served.settledRun(key)).error).toMatchObject({ name: "AbortError", message: "changed my mind" });
    const again = await postJson(`${served.url}/runs/${key}/cancel`, {});
    expect(await again.json()).toEqual({ key, cancelled: false });
    expect((await postJson(`${served.url}/runs/no-such-run/cancel`, {})).status).toBe(404);
    expect((await postJson(`${served.url}/runs/${key}/cancel`, { why: "x" })).status).toBe(400);
  });
});
