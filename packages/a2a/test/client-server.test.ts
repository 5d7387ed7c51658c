// Our A2A client and delegate() against our own A2A server (reference-driver agents): every
// DelegationError code a host meets, each with its retryable flag, remote status and metadata.
import { findError } from "@adaptor/errors";
import { TaskState } from "@a2a-js/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AClient, DelegationError, delegate, type A2AStreamEvent, type DelegationProgress } from "../src/index.js";
import { Agent } from "adaptor";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { a2aServer } from "../src/index.js";
import { listen, serve, type Served } from "./support.js";

async function delegationError(promise: Promise<unknown>): Promise<DelegationError> {
  try {
    await promise;
  } catch (error) {
    const found = findError(error, DelegationError);
    if (found) return found;
    throw error;
  }
  throw new Error("expected a DelegationError");
}

describe("delegate() through our client to our server", () => {
  let served: Served;
  let client: A2AClient;

  beforeAll(async () => {
    served = await serve();
    client = await A2AClient.connect(served.url);
  });
  afterAll(async () => {
    await client?.close();
    await served?.close();
  });

  it("a completed task gives its answer, task and context, with status and artifact progress", async () => {
    const progress: DelegationProgress[] = [];
    const result = await delegate(client, "summarise", { onProgress: (p) => progress.push(p) });
    expect(result.text).toBe("Reference reply #1: summarise");
    expect(result.taskId).not.toBe("");
    expect(result.contextId).not.toBe("");
    expect(progress[0]).toMatchObject({ kind: "status", state: "working", taskId: result.taskId });
    expect(progress.filter((p) => p.kind === "artifact").length).toBeGreaterThan(1);
    expect(progress.at(-1)).toMatchObject({ kind: "status", state: "completed" });
  });

  it("a remote business failure: remote_failed, not retryable, remoteStatus failed, the closed failure code in metadata", async () => {
    const err = await delegationError(delegate(client, "FAIL compile error in main.ts"));
    expect(err).toMatchObject({ code: "remote_failed", retryable: false, remoteStatus: "failed" });
    expect(err.message).toBe("remote agent: agent_error: compile error in main.ts");
    expect(err.metadata).toMatchObject({ failure: "agent_error" });
    expect(typeof err.metadata["taskId"]).toBe("string");
  });

  it("a remote approval the delegation cannot answer: input_required, with the remote task id to answer later", async () => {
    const err = await delegationError(delegate(client, "TOOL rm -rf /tmp/x"));
    expect(err).toMatchObject({ code: "input_required", retryable: false, remoteStatus: "input-required" });
    const taskId = String(err.metadata["taskId"]);
    expect((await client.getTask(taskId)).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const answered = await client.send(
      {
        parts: [
          { content: { $case: "data", value: { decision: "approve" } }, metadata: undefined, filename: "", mediaType: "application/json" },
        ],
      },
      { taskId },
    );
    expect("status" in answered && answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("an approval answered through stream(answer, { taskId }) streams the whole continued run to completed", async () => {
    const asked: A2AStreamEvent[] = [];
    for await (const event of client.stream("TOOL ls -la")) asked.push(event);
    expect(asked.at(-1)).toMatchObject({ kind: "status-update", state: TaskState.TASK_STATE_INPUT_REQUIRED, final: true });
    const taskId = asked.at(-1)!.taskId!;
    const answer = {
      parts: [
        {
          content: { $case: "data" as const, value: { decision: "approve" } },
          metadata: undefined,
          filename: "",
          mediaType: "application/json",
        },
      ],
    };
    const events: A2AStreamEvent[] = [];
    for await (const event of client.stream(answer, { taskId })) events.push(event);
    expect(events[0]).toMatchObject({ kind: "task", state: TaskState.TASK_STATE_INPUT_REQUIRED, final: false });
    expect(events.filter((e) => e.final)).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ kind: "status-update", state: TaskState.TASK_STATE_COMPLETED, final: true });
    const answerText = events.filter((e) => e.kind === "artifact-update").at(-1);
    expect(answerText).toMatchObject({ kind: "artifact-update" });
    expect(answerText?.kind === "artifact-update" ? answerText.text : "").toContain("Done");
  });

  it("the delegation deadline: timeout, retryable, and the remote task is canceled", async () => {
    const err = await delegationError(delegate(client, "SLOW", { timeoutMs: 2000 }));
    expect(err).toMatchObject({ code: "timeout", retryable: true });
    const taskId = String(err.metadata["taskId"]);
    expect((await client.getTask(taskId)).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("an abort of the caller's signal is thrown as is, not as a DelegationError, and cancels the remote task", async () => {
    const controller = new AbortController();
    let taskId = "";
    const pending = delegate(client, "SLOW", {
      signal: controller.signal,
      onProgress: (progress) => {
        taskId = progress.taskId;
        controller.abort(new Error("host shutting down"));
      },
    });
    await expect(pending).rejects.toThrow("host shutting down");
    expect(findError(await pending.catch((e: unknown) => e), DelegationError)).toBeUndefined();
    expect((await client.getTask(taskId)).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});

describe("an agent mounted under a path", () => {
  it("the client finds the card below the path and talks to the mounted endpoints", async () => {
    const listening = await listen();
    const agent = new Agent(new ReferenceDriver());
    const server = a2aServer(agent, { url: `${listening.url}/agents/reviewer/`, card: { name: "Mounted", description: "Under a path" } });
    listening.handle((req, res) => {
      const prefix = "/agents/reviewer";
      if (!req.url?.startsWith(prefix)) return void res.writeHead(404).end();
      req.url = req.url.slice(prefix.length) || "/";
      server.handler(req, res);
    });
    try {
      await using client = await A2AClient.connect(`${listening.url}/agents/reviewer`);
      expect(client.card.name).toBe("Mounted");
      expect(client.agentInterface.url).toBe(`${listening.url}/agents/reviewer`);
      expect((await delegate(client, "mounted hello")).text).toBe("Reference reply #1: mounted hello");
    } finally {
      await server.close();
      await agent.close();
      await listening.close();
    }
  });
});

describe("delegate() failures of the connection", () => {
  it("a refused credential: unauthorized, not retryable", async () => {
    const served = await serve(undefined, { authorize: (req) => req.headers["authorization"] === "Bearer good-token" });
    try {
      await using client = await A2AClient.connect(served.url, { headers: { authorization: "Bearer bad-token" } });
      const err = await delegationError(delegate(client, "hello"));
      expect(err).toMatchObject({ code: "unauthorized", retryable: false, metadata: { op: "message/stream" } });
      await using good = await A2AClient.connect(served.url, { headers: { authorization: "Bearer good-token" } });
      expect((await delegate(good, "hello")).text).toBe("Reference reply #1: hello");
    } finally {
      await served.close();
    }
  });

  it("an agent that went away: unreachable, retryable", async () => {
    const served = await serve();
    const client = await A2AClient.connect(served.url);
    await served.close();
    const err = await delegationError(delegate(client, "hello"));
    expect(err).toMatchObject({ code: "unreachable", retryable: true });
  });
});
