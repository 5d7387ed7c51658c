import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HttpAgent } from "@ag-ui/client";
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "@adaptor/claude";
import { processGone } from "@adaptor/driver/kit";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv, type ScriptRule } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { AG_UI_CUSTOM_EVENTS } from "../src/index.js";
import { postJson, readUntil, serve, sseMessages, type Served } from "./support.js";

// End to end on the real Claude Code binary (scripted model on 127.0.0.1): approvals answered
// across the wire by a plain fetch + eventsource-parser client and by @ag-ui/client's HttpAgent,
// and a client that disconnects mid-run, whose CLI is reaped.

interface Rig {
  readonly server: AnthropicServer;
  readonly env: ClaudeTestEnv;
  readonly agent: Agent;
  readonly served: Served;
}

let rig: Rig | undefined;
afterEach(async () => {
  if (!rig) return;
  await rig.served.close();
  await rig.agent.close();
  await rig.server.close();
  await rig.env.cleanup();
  rig = undefined;
});

/** Two writes: the host approves the first (one.txt) and denies the second (two.txt); the model then reports. */
function twoWrites(workDir: () => string): ScriptRule[] {
  return [
    {
      name: "report",
      when: (view) => view.lastToolResult?.toolName === "Write" && view.lastToolResult.isError,
      reply: (view) => ({ text: `one.txt is written; two.txt was refused (${view.lastToolResult?.content.slice(0, 60)}).` }),
    },
    {
      name: "write two",
      when: (view) => view.lastToolResult?.toolName === "Write" && /one\.txt/.test(view.lastToolResult.content),
      reply: () => ({ toolUse: { name: "Write", input: { file_path: join(workDir(), "two.txt"), content: "two\n" } } }),
    },
    {
      name: "write one",
      when: (view) => view.lastUserText.includes("two files"),
      reply: () => ({ toolUse: { name: "Write", input: { file_path: join(workDir(), "one.txt"), content: "one\n" } } }),
    },
  ];
}

async function makeRig(options: { reconnectGraceMs?: number } = {}): Promise<Rig> {
  let workDir = "";
  const server = await startAnthropicServer({ rules: twoWrites(() => workDir) });
  const env = await claudeTestEnv({ server });
  workDir = env.workDir;
  const agent = new Agent(claude({ cwd: env.workDir, env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    policy: { approvals: { timeoutMs: 60_000 } },
  });
  const served = await serve({ runner: agent, ...options });
  return { server, env, agent, served };
}

describe("the bridge in front of the real claude binary", { timeout: 180_000 }, () => {
  it("raw over fetch: an image part of the prompt reaches the model as a base64 image block before the text", async () => {
    rig = await makeRig();
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    const response = await postJson(`${rig.served.url}/runs`, {
      prompt: [
        { type: "text", text: "what is in this picture?" },
        { type: "image", data: png, mimeType: "image/png" },
      ],
    });
    expect(response.status).toBe(200);
    const events = await readUntil(sseMessages(response), (message) => message.data["type"] === "run-finished");
    expect(events.at(-1)?.data).toMatchObject({ type: "run-finished", ok: true });
    const blocks = rig.server.requests
      .filter((request) => request.path === "/v1/messages")
      .flatMap((request) => (request.body as { messages?: { role: string; content: unknown }[] }).messages ?? [])
      .filter((message) => message.role === "user" && Array.isArray(message.content))
      .flatMap((message) => message.content as { type: string; source?: unknown; text?: string }[]);
    expect(blocks).toContainEqual(
      expect.objectContaining({ type: "image", source: { type: "base64", media_type: "image/png", data: png } }),
    );
    const image = blocks.findIndex((block) => block.type === "image");
    const text = blocks.findIndex((block) => block.type === "text" && block.text?.includes("what is in this picture?") === true);
    expect(image).toBeGreaterThanOrEqual(0);
    expect(text).toBeGreaterThan(image);
  });

  it("raw over fetch + eventsource-parser: the client approves one write and denies another; the verdict and files agree", async () => {
    rig = await makeRig();
    const response = await postJson(`${rig.served.url}/runs`, { prompt: "please write two files" });
    const messages = sseMessages(response);
    const answered: string[] = [];
    let finished: Record<string, unknown> | undefined;
    const seen: string[] = [];
    for await (const message of messages) {
      seen.push(String(message.data["type"]));
      if (message.data["type"] === "approval-request") {
        const request = message.data["request"] as { id: string; toolName: string; input: { file_path: string } };
        const first = answered.length === 0;
        answered.push(`${request.toolName} ${request.input.file_path.split("/").pop()}`);
        const reply = await postJson(
          `${rig.served.url}/approvals/${request.id}`,
          first ? { decision: "approve" } : { decision: "deny", reason: "not that one" },
        );
        expect(reply.status).toBe(200);
      }
      if (message.data["type"] === "run-finished") {
        finished = message.data;
        break;
      }
    }
    expect(answered).toEqual(["Write one.txt", "Write two.txt"]);
    expect(finished).toMatchObject({ ok: true });
    expect(seen).toContain("tool-result");
    expect(readFileSync(join(rig.env.workDir, "one.txt"), "utf8")).toBe("one\n");
    expect(existsSync(join(rig.env.workDir, "two.txt"))).toBe(false);
    const settled = await rig.served.settledRun(response.headers.get("x-adaptor-run-id")!);
    expect(settled.result?.text).toMatch(/^one\.txt is written; two\.txt was refused \(.*not that one/);
    expect(rig.server.requests.filter((r) => r.rule !== undefined && !r.rule.startsWith("directive")).map((r) => r.rule)).toEqual([
      "write one",
      "write two",
      "report",
    ]);
  });

  it("ag-ui through @ag-ui/client's HttpAgent: the same approvals answered from onCustomEvent; messages hold the calls, results and final text", async () => {
    rig = await makeRig();
    const url = rig.served.url;
    const agent = new HttpAgent({ url: `${url}/ag-ui`, initialMessages: [{ id: "u1", role: "user", content: "please write two files" }] });
    let asked = 0;
    const { newMessages, result } = await agent.runAgent(
      { runId: "claude-ag-ui" },
      {
        onCustomEvent: async ({ event }) => {
          if (event.name !== AG_UI_CUSTOM_EVENTS.approvalRequest) return;
          const id = (event.value as { id: string }).id;
          const reply = await postJson(
            `${url}/approvals/${id}`,
            asked++ === 0 ? { decision: "approve" } : { decision: "deny", reason: "not that one" },
          );
          expect(reply.status).toBe(200);
        },
      },
    );
    expect(asked).toBe(2);
    const toolCalls = newMessages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : []));
    expect(toolCalls.map((call) => call.function.name)).toEqual(["Write", "Write"]);
    expect(newMessages.filter((m) => m.role === "tool")).toHaveLength(2);
    expect((result as { text: string }).text).toMatch(/^one\.txt is written; two\.txt was refused/);
    const approvals = Object.values(
      (agent.state as { adaptor: { approvals: Record<string, { status: string; toolName: string }> } }).adaptor.approvals,
    );
    expect(approvals.map((a) => `${a.toolName} ${a.status}`)).toEqual(["Write approved", "Write denied"]);
    expect(existsSync(join(rig.env.workDir, "two.txt"))).toBe(false);
  });

  it("a client that disconnects mid-run cancels the run, and the CLI process is reaped", async () => {
    rig = await makeRig({ reconnectGraceMs: 0 });
    const disconnect = new AbortController();
    const response = await postJson(`${rig.served.url}/runs`, { prompt: "SLOW_MS 600000 take your time" }, { signal: disconnect.signal });
    const read = await readUntil(sseMessages(response), (m) => m.data["type"] === "process" && m.data["kind"] === "spawn");
    const pid = Number(read.at(-1)!.data["pid"]);
    expect(processGone(pid)).toBe(false);
    // Wait until the CLI asked the model (the turn is in flight), then go away.
    while (rig.server.requests.filter((r) => r.path === "/v1/messages").length === 0)
      await new Promise((resolve) => setTimeout(resolve, 100));
    disconnect.abort();
    const settled = await rig.served.settledRun(response.headers.get("x-adaptor-run-id")!);
    expect((settled.error as Error).name).toBe("AbortError");
    while (!processGone(pid)) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processGone(pid)).toBe(true);
  });
});
