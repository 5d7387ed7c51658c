import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import { afterEach, describe, expect, it } from "vitest";
import { AG_UI_CUSTOM_EVENTS } from "../src/index.js";
import { postJson, readUntil, referenceAgent, serve, sseMessages, type Served } from "./support.js";

// "Always allow" / "always deny" over the wire: the approval request carries its suggestions, and
// `POST approvals/<id>` takes one back as `remember`, checked as `request.approve({ remember })` checks it.

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const NPM_TEST = { toolName: "shell", command: "npm test" };

/** Starts a raw run of `prompt` and reads up to its first approval request. */
async function firstAsk(prompt: string) {
  const messages = sseMessages(await postJson(`${served!.url}/runs`, { prompt }));
  const asked = (await readUntil(messages, (m) => m.data["type"] === "approval-request")).at(-1)!;
  return { messages, request: asked.data["request"] as { id: string; suggestions: unknown[] } };
}

describe("raw protocol: remember", () => {
  it("an approve remembering the request's suggestion answers the run's second ask itself: one approval-request, an approval.remembered notice, both calls run", async () => {
    served = await serve({ runner: referenceAgent() });
    const { messages, request } = await firstAsk("TOOL npm test\nTOOL npm test");
    expect(request.suggestions).toEqual([NPM_TEST]);
    const answer = await postJson(`${served.url}/approvals/${request.id}`, { decision: "approve", remember: request.suggestions[0] });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ id: request.id, status: "approved" });
    const rest = await readUntil(messages, (m) => m.data["type"] === "run-finished");
    expect(rest.filter((m) => m.data["type"] === "approval-request")).toEqual([]);
    expect(rest.find((m) => m.data["kind"] === "approval.remembered")?.data["data"]).toMatchObject({
      id: request.id,
      outcome: "approved",
      rule: NPM_TEST,
      scope: "run",
    });
    const byRule = rest.filter((m) => m.data["kind"] === "approval.resolved" && (m.data["data"] as { rule?: unknown }).rule !== undefined);
    expect(byRule.map((m) => (m.data["data"] as { outcome: string }).outcome)).toEqual(["approved"]);
    expect(rest.filter((m) => m.data["type"] === "tool-result").map((m) => m.data["output"])).toEqual(["ran npm test", "ran npm test"]);
    expect(rest.at(-1)!.data).toMatchObject({ ok: true });
  });

  it("a deny remembering the rule denies the second ask with the client's reason", async () => {
    served = await serve({ runner: referenceAgent() });
    const { messages, request } = await firstAsk("TOOL npm test\nTOOL npm test");
    const answer = await postJson(`${served.url}/approvals/${request.id}`, { decision: "deny", reason: "not today", remember: NPM_TEST });
    expect(answer.status).toBe(200);
    const rest = await readUntil(messages, (m) => m.data["type"] === "run-finished");
    expect(rest.filter((m) => m.data["type"] === "approval-request")).toEqual([]);
    expect(rest.filter((m) => m.data["type"] === "tool-result").map((m) => m.data["output"])).toEqual([
      "denied: not today",
      "denied: not today",
    ]);
  });

  it("a rule that does not match, a malformed one and an allow under read_only are 422 approval_invalid_remember naming the field; nothing is decided", async () => {
    served = await serve({ runner: referenceAgent() });
    const { messages, request } = await firstAsk("TOOL npm test");
    const url = `${served.url}/approvals/${request.id}`;
    const other = await postJson(url, { decision: "approve", remember: { toolName: "shell", command: "make" } });
    expect(other.status).toBe(422);
    expect(await other.json()).toEqual({
      error: {
        code: "approval_invalid_remember",
        field: "remember",
        message: `remember does not match approval ${request.id} (shell); a rule must match the request it answers`,
      },
    });
    const malformed = await postJson(url, { decision: "deny", remember: { scope: "run" } });
    expect(malformed.status).toBe(422);
    expect(await malformed.json()).toMatchObject({ error: { code: "approval_invalid_remember", field: "remember.toolName" } });
    const notObject = await postJson(url, { decision: "approve", remember: "always" });
    expect(await notObject.json()).toMatchObject({ error: { code: "approval_invalid_remember", field: "remember" } });
    const edited = await postJson(url, { decision: "approve", updatedInput: { command: "npm test" }, remember: NPM_TEST });
    expect(await edited.json()).toMatchObject({ error: { code: "approval_invalid_remember", field: "remember" } });
    // A resume's answer has no remember: the shape refuses it.
    const onAnswer = await postJson(url, { decision: "answer", choice: "x", remember: NPM_TEST });
    expect(onAnswer.status).toBe(400);
    // Still pending: a plain approve goes through.
    expect((await postJson(url, { decision: "approve" })).status).toBe(200);
    const rest = await readUntil(messages, (m) => m.data["type"] === "run-finished");
    expect(rest.some((m) => m.data["kind"] === "approval.remembered")).toBe(false);
  });

  it("under policy.sandbox read_only an allow is refused (422, the request still pending), a remembered deny is taken", async () => {
    served = await serve({ runner: referenceAgent({ policy: { sandbox: "read_only" } }) });
    const { messages, request } = await firstAsk("TOOL npm test\nTOOL npm test");
    const url = `${served.url}/approvals/${request.id}`;
    const allow = await postJson(url, { decision: "approve", remember: NPM_TEST });
    expect(allow.status).toBe(422);
    expect(await allow.json()).toMatchObject({
      error: { code: "approval_invalid_remember", field: "remember", message: expect.stringContaining('policy.sandbox is "read_only"') },
    });
    expect((await postJson(url, { decision: "deny", reason: "no", remember: NPM_TEST })).status).toBe(200);
    const rest = await readUntil(messages, (m) => m.data["type"] === "run-finished");
    expect(rest.filter((m) => m.data["type"] === "approval-request")).toEqual([]);
    expect(rest.find((m) => m.data["kind"] === "approval.remembered")?.data["data"]).toMatchObject({ outcome: "denied" });
  });
});

describe("ag-ui protocol: remember", () => {
  it("@ag-ui/client: the CUSTOM approval event carries the suggestions; approving with one answers the second ask without another CUSTOM event", async () => {
    served = await serve({ runner: referenceAgent() });
    const url = served.url;
    const agent = new HttpAgent({
      url: `${url}/ag-ui`,
      initialMessages: [{ id: randomUUID(), role: "user", content: "TOOL npm test\nTOOL npm test" }],
    });
    const asked: { id: string; suggestions: unknown[] }[] = [];
    const notices: string[] = [];
    const { newMessages } = await agent.runAgent(
      {},
      {
        onCustomEvent: async ({ event }) => {
          if (event.name === AG_UI_CUSTOM_EVENTS.notice) notices.push((event.value as { kind: string }).kind);
          if (event.name !== AG_UI_CUSTOM_EVENTS.approvalRequest) return;
          const request = event.value as { id: string; suggestions: unknown[] };
          asked.push(request);
          const answer = await postJson(`${url}/approvals/${request.id}`, { decision: "approve", remember: request.suggestions[0] });
          expect(answer.status).toBe(200);
        },
      },
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]!.suggestions).toEqual([NPM_TEST]);
    expect(notices).toContain("approval.remembered");
    expect(newMessages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["ran npm test", "ran npm test"]);
  });
});
