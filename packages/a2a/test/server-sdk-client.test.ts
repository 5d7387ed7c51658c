// Our A2A server (a Runner behind @a2a-js/sdk's server) driven by the official @a2a-js/sdk client
// over JSON-RPC and HTTP+JSON: card, blocking and streaming send, approvals as input-required,
// business and infrastructure failures with closed codes, get and cancel.
import { TaskState, type Message, type Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { Agent } from "adaptor";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FAILURE_METADATA_KEY, RESPONSE_ARTIFACT_ID } from "../src/index.js";
import {
  asTask,
  data,
  partsText,
  sdkClient,
  send,
  serve,
  text,
  throwingDriver,
  twoApprovalsDriver,
  userMessage,
  type Served,
} from "./support.js";

/** Calls `read` until `done` holds for its value (every 50 ms, at most 60 s, a safety net). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (const started = Date.now(); ;) {
    const value = await read();
    if (done(value) || Date.now() - started > 60_000) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("our A2A server, the @a2a-js/sdk client", () => {
  let served: Served;
  let client: Client;

  beforeAll(async () => {
    served = await serve();
    client = await sdkClient(served.url);
  });
  afterAll(async () => {
    await served?.close();
  });

  it("publishes an agent card the SDK client reads: name, JSON-RPC and HTTP+JSON interfaces, streaming", async () => {
    const card = await client.getAgentCard();
    expect(card.name).toBe("Reference agent");
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url])).toEqual([
      ["JSONRPC", served.url],
      ["HTTP+JSON", `${served.url}/rest`],
    ]);
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.skills[0]?.name).toBe("Reference agent");
  });

  it("a blocking send runs the prompt and returns the completed task with the answer as its artifact", async () => {
    const task = asTask(await client.sendMessage(send([text("hello there")])));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map((a) => a.artifactId)).toEqual([RESPONSE_ARTIFACT_ID]);
    expect(partsText(task.artifacts[0]?.parts)).toBe("Reference reply #1: hello there");
    const fetched = await client.getTask({ tenant: "", id: task.id });
    expect(fetched.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(partsText(fetched.artifacts[0]?.parts)).toBe("Reference reply #1: hello there");
  });

  it("a streaming send yields the task, appended text chunks, the whole answer as last chunk, then completed", async () => {
    const events = [];
    for await (const event of client.sendMessageStream(send([text("stream please")]))) events.push(event.payload);
    expect(events[0]?.$case).toBe("task");
    const chunks = events.filter((e) => e?.$case === "artifactUpdate").map((e) => (e?.$case === "artifactUpdate" ? e.value : undefined));
    expect(chunks.length).toBeGreaterThan(1);
    expect(
      chunks
        .slice(0, -1)
        .map((c) => partsText(c?.artifact?.parts))
        .join(""),
    ).toBe("Reference reply #1: stream please");
    expect(chunks.slice(1, -1).every((c) => c?.append === true)).toBe(true);
    const last = chunks.at(-1);
    expect(last).toMatchObject({ append: false, lastChunk: true });
    expect(partsText(last?.artifact?.parts)).toBe("Reference reply #1: stream please");
    const final = events.at(-1);
    expect(final?.$case === "statusUpdate" ? final.value.status?.state : undefined).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("an approval becomes input-required with the request; a data-part answer approves it and the task completes", async () => {
    let taskId = "";
    let approval: Record<string, unknown> | undefined;
    for await (const event of client.sendMessageStream(send([text("TOOL ls -la")]))) {
      const payload = event.payload;
      if (payload?.$case === "task") taskId = payload.value.id;
      if (payload?.$case === "statusUpdate" && payload.value.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
        const part = payload.value.status.message?.parts.find((p) => p.content?.$case === "data");
        approval = part?.content?.$case === "data" ? (part.content.value as { approval: Record<string, unknown> }).approval : undefined;
      }
    }
    expect(approval).toMatchObject({ kind: "permission", toolName: "shell", input: { command: "ls -la" } });
    expect((await client.getTask({ tenant: "", id: taskId })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const answered = asTask(await client.sendMessage(send([data({ decision: "approve" })], taskId)));
    expect(answered.id).toBe(taskId);
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(partsText(answered.artifacts[0]?.parts)).toContain("Done");
  });

  it("a denial through the text answer reaches the agent; the run goes on and completes", async () => {
    const first = asTask(await client.sendMessage(send([text("TOOL rm -rf build")])));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const answered = asTask(await client.sendMessage(send([text("deny")], first.id)));
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("an answer that does not fit leaves the task input-required and says how to answer", async () => {
    const first = asTask(await client.sendMessage(send([text("TOOL make")])));
    const wrong = asTask(await client.sendMessage(send([text("maybe later")], first.id)));
    expect(wrong.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(partsText(wrong.status?.message?.parts)).toBe(
      'that answer does not fit the waiting approval. shell: make (answer with { decision: "approve" } or { decision: "deny", reason })',
    );
    expect(wrong.status?.message?.parts.some((p) => p.content?.$case === "data")).toBe(true);
    const answered = asTask(await client.sendMessage(send([data({ decision: "approve" })], first.id)));
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("an approve carrying an edited input (or any field besides decision, id, reason, choice) is refused: nothing runs, the task stays input-required", async () => {
    const first = asTask(await client.sendMessage(send([text("TOOL make")])));
    for (const answer of [
      { decision: "approve", updatedInput: { command: "rm -rf /pretend" } },
      { decision: "approve", input: { command: "rm -rf /pretend" } },
      { decision: "deny", reason: "no", extra: 1 },
      { decision: "deny", reason: 5 },
    ]) {
      const wrong = asTask(await client.sendMessage(send([data(answer)], first.id)));
      expect(wrong.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(partsText(wrong.status?.message?.parts)).toBe(
        'that answer does not fit the waiting approval. shell: make (answer with { decision: "approve" } or { decision: "deny", reason })',
      );
    }
    const answered = asTask(await client.sendMessage(send([data({ decision: "approve" })], first.id)));
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("an answer naming an unknown approval id says the id is unknown and which ids wait; the task stays input-required", async () => {
    const first = asTask(await client.sendMessage(send([text("TOOL make")])));
    const wrong = asTask(await client.sendMessage(send([data({ decision: "approve", id: "no-such-approval" })], first.id)));
    expect(wrong.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const said = partsText(wrong.status?.message?.parts);
    expect(said).toMatch(/^no waiting approval has the id "no-such-approval" \(waiting: [^)]+\)\. shell: make/);
    expect(said).not.toContain("does not fit");
    const answered = asTask(await client.sendMessage(send([data({ decision: "approve" })], first.id)));
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("two clients answering one input-required task at once: in every round exactly one wins, the other gets an A2A error", async () => {
    const [alice, bob] = [await sdkClient(served.url), await sdkClient(served.url, "HTTP+JSON")];
    for (let round = 0; round < 12; round++) {
      const first = asTask(await client.sendMessage(send([text(`TOOL make round-${round}`)])));
      expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const answers = [
        alice.sendMessage(send([data({ decision: "approve" })], first.id)),
        bob.sendMessage(send([data({ decision: "deny", reason: "no" })], first.id)),
      ];
      const settled = await Promise.allSettled(round % 2 === 0 ? answers : answers.reverse());
      const won = settled.filter((s): s is PromiseFulfilledResult<Task | Message> => s.status === "fulfilled");
      const lost = settled.filter((s): s is PromiseRejectedResult => s.status === "rejected");
      expect({ round, won: won.length, lost: lost.length }).toEqual({ round, won: 1, lost: 1 });
      expect(asTask(won[0]!.value).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect((lost[0]!.reason as Error).message).toMatch(
        /already answered by another message|is not waiting for input|terminal state \(completed\)/,
      );
    }
  });

  it("a raw HTTP caller needs the A2A-Version: 1.0 header: without it the SDK refuses the request as protocol 0.3", async () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "hello" }] } },
    });
    const post = (headers: Record<string, string>) =>
      fetch(`${served.url}/`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }).then(
        (r) => r.json() as Promise<Record<string, unknown>>,
      );
    expect(await post({})).toMatchObject({ error: { code: -32009, message: expect.stringContaining("'0.3' is not supported") } });
    expect(await post({ "A2A-Version": "1.0" })).toMatchObject({ result: { task: { status: { state: "TASK_STATE_COMPLETED" } } } });
  });

  it("a message on a finished task is refused naming its state (completed), not its number", async () => {
    const done = asTask(await client.sendMessage(send([text("hello")])));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const refused = await client.sendMessage(send([text("one more thing")], done.id)).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refused?.message).toContain(`Task ${done.id} is in a terminal state (completed)`);
    expect(refused?.message).not.toMatch(/\(\d+\)/);
  });

  it("two approvals at once: each is shown in turn and answered by id; the task completes when both are", async () => {
    const agent = new Agent(twoApprovalsDriver());
    const two = await serve(agent);
    try {
      const twoClient = await sdkClient(two.url);
      const approvalOf = (task: Task) => {
        const part = task.status?.message?.parts.find((p) => p.content?.$case === "data");
        return (
          part?.content?.$case === "data"
            ? (part.content.value as { approval: { id: string; title: string; waiting: number } }).approval
            : undefined
        )!;
      };
      const first = asTask(await twoClient.sendMessage(send([text("build it")])));
      expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const firstAsk = approvalOf(first);
      // Both asks are pending by now or soon; answer the second one by id first when it is known.
      const fetched = await until(
        () => twoClient.getTask({ tenant: "", id: first.id }),
        (t) => approvalOf(t)?.waiting === 2,
      );
      const secondAsk = approvalOf(fetched);
      expect(secondAsk.id).not.toBe(firstAsk.id);
      expect([firstAsk.title, secondAsk.title].sort()).toEqual(["shell: make", "shell: make test"]);
      const afterOne = asTask(
        await twoClient.sendMessage(send([data({ decision: "deny", id: secondAsk.id, reason: "not now" })], first.id)),
      );
      expect(afterOne.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(approvalOf(afterOne).id).toBe(firstAsk.id);
      const done = asTask(await twoClient.sendMessage(send([data({ decision: "approve" })], first.id)));
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const answer = partsText(done.artifacts[0]?.parts);
      expect(answer).toContain(`${firstAsk.title.slice(7)}: approve`);
      expect(answer).toContain(`${secondAsk.title.slice(7)}: deny`);
    } finally {
      await two.close();
      await agent.close();
    }
  });

  it("a business failure ends the task failed with its reason and the closed code agent_error", async () => {
    const task = asTask(await client.sendMessage(send([text("FAIL the build is broken")])));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(partsText(task.status?.message?.parts)).toBe("agent_error: the build is broken");
    expect(task.status?.message?.metadata?.[FAILURE_METADATA_KEY]).toEqual({ code: "agent_error", retryable: false });
  });

  it("a failed task's message is redacted as the bridge redacts it: no API key, password or credential variable leaves the host", async () => {
    vi.stubEnv("MY_SERVICE_TOKEN", "tok-very-secret-123456");
    try {
      const secret =
        "FAIL API Error: 400 key sk-ant-api03-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 DB_PASSWORD=hunter2 " +
        "http://admin:pw1234@db.internal/x tok-very-secret-123456\nsecond line";
      const task = asTask(await client.sendMessage(send([text(secret)])));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(partsText(task.status?.message?.parts)).toBe(
        "agent_error: API Error: 400 key [redacted] DB_PASSWORD=[redacted] http://[redacted]@db.internal/x [redacted]",
      );
      const wire = JSON.stringify(task.status);
      for (const leak of ["sk-ant-api03", "hunter2", "pw1234", "tok-very-secret", "second line"]) expect(wire).not.toContain(leak);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("CancelTask on a running task ends it canceled and ends the run", async () => {
    let taskId = "";
    const stream = client.sendMessageStream(send([text("SLOW")]));
    for await (const event of stream) {
      if (event.payload?.$case === "task") {
        taskId = event.payload.value.id;
        break;
      }
    }
    const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(canceled.status?.message?.metadata?.[FAILURE_METADATA_KEY]).toEqual({ code: "cancelled", retryable: false });
    expect((await client.getTask({ tenant: "", id: taskId })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("GetTask and CancelTask of an unknown task fail with the SDK's TaskNotFoundError", async () => {
    await expect(client.getTask({ tenant: "", id: "no-such-task" })).rejects.toMatchObject({ reason: "TASK_NOT_FOUND" });
    await expect(client.cancelTask({ tenant: "", id: "no-such-task", metadata: undefined })).rejects.toMatchObject({
      reason: "TASK_NOT_FOUND",
    });
  });

  it("the HTTP+JSON interface serves the same agent", async () => {
    const rest = await sdkClient(served.url, "HTTP+JSON");
    expect(rest.transport.protocolName).toBe("HTTP+JSON");
    const task = asTask(await rest.sendMessage(send([text("over rest")])));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(partsText(task.artifacts[0]?.parts)).toBe("Reference reply #1: over rest");
  });
});

describe("run settings that still apply behind A2A", () => {
  it("the run's approval deadline and fallback apply while the task is input-required: abort ends it failed with approval_timeout", async () => {
    const served = await serve(undefined, { runOptions: { policy: { approvals: { timeoutMs: 1000, onTimeout: "abort" } } } });
    try {
      const client = await sdkClient(served.url);
      let taskId = "";
      let lastState: TaskState | undefined;
      for await (const event of client.sendMessageStream(send([text("TOOL sleep 100")]))) {
        const payload = event.payload;
        if (payload?.$case === "task") taskId = payload.value.id;
        if (payload?.$case === "statusUpdate") lastState = payload.value.status?.state;
      }
      expect(lastState).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      // Nobody answers and no request is open; the deadline passes, the abort fallback ends the
      // run, and the task store records it.
      const final = await until(
        () => client.getTask({ tenant: "", id: taskId }),
        (task) => task.status?.state === TaskState.TASK_STATE_FAILED,
      );
      expect(final?.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(final?.status?.message?.metadata?.[FAILURE_METADATA_KEY]).toEqual({ code: "approval_timeout", retryable: true });
    } finally {
      await served.close();
    }
  });

  it("a run that finishes after its client went away is recorded: getTask reads the completed task and its answer", async () => {
    const served = await serve();
    try {
      const client = await sdkClient(served.url);
      let taskId = "";
      for await (const event of client.sendMessageStream(send([text("SLOW_MS 300 late answer")]))) {
        if (event.payload?.$case === "task") {
          taskId = event.payload.value.id;
          break; // the client disconnects
        }
      }
      const task = await until(
        () => client.getTask({ tenant: "", id: taskId }),
        (t) => t.status?.state === TaskState.TASK_STATE_COMPLETED,
      );
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(partsText(task.artifacts[0]?.parts)).toBe("Reference reply #1: SLOW_MS 300 late answer");
    } finally {
      await served.close();
    }
  });

  it("a runner per conversation: messages of one contextId continue one thread", async () => {
    const agent = new Agent(new ReferenceDriver(), { threadStore: new MemoryThreadStore() });
    const served = await serve(({ contextId }) => agent.thread(`a2a:${contextId}`));
    try {
      const client = await sdkClient(served.url);
      const first = asTask(await client.sendMessage(send([text("first question")])));
      expect(partsText(first.artifacts[0]?.parts)).toBe("Reference reply #1: first question");
      const followUp = {
        tenant: "",
        message: { ...userMessage([text("second question")]), contextId: first.contextId },
        configuration: undefined,
        metadata: undefined,
      };
      const second = asTask(await client.sendMessage(followUp));
      expect(second.contextId).toBe(first.contextId);
      expect(second.id).not.toBe(first.id);
      expect(partsText(second.artifacts[0]?.parts)).toBe("Reference reply #2: second question");
      const other = asTask(await client.sendMessage(send([text("another conversation")])));
      expect(partsText(other.artifacts[0]?.parts)).toBe("Reference reply #1: another conversation");
    } finally {
      await served.close();
      await agent.close();
    }
  });
});

describe("a contextId whose thread key the SDK refuses", () => {
  it("the task fails with code invalid_id, not retryable, naming the key rule it breaks; no run starts", async () => {
    const agent = new Agent(new ReferenceDriver(), { threadStore: new MemoryThreadStore() });
    const served = await serve(({ contextId }) => agent.thread(`a2a:${contextId}`));
    try {
      const client = await sdkClient(served.url);
      const message = {
        tenant: "",
        message: { ...userMessage([text("hi")]), contextId: "abc\u202e" },
        configuration: undefined,
        metadata: undefined,
      };
      const task = asTask(await client.sendMessage(message));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(partsText(task.status?.message?.parts)).toBe(
        "invalid_id: the thread key of this context contains the bidi control U+202E at index 7",
      );
      expect(task.status?.message?.metadata?.[FAILURE_METADATA_KEY]).toEqual({ code: "invalid_id", retryable: false });
      expect(await agent.listThreads()).toMatchObject({ threads: [] });
    } finally {
      await served.close();
      await agent.close();
    }
  });
});

describe("infrastructure failures leave no detail", () => {
  it("a run that fails outside the business verdict ends failed with code error and a fixed message: no secret, no stack", async () => {
    const agent = new Agent(throwingDriver());
    const served = await serve(agent);
    try {
      const client = await sdkClient(served.url);
      const task = asTask(await client.sendMessage(send([text("anything")])));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(partsText(task.status?.message?.parts)).toBe("error: internal error");
      expect(task.status?.message?.metadata?.[FAILURE_METADATA_KEY]).toEqual({ code: "error", retryable: true });
      const wire = JSON.stringify(await client.getTask({ tenant: "", id: task.id }));
      expect(wire).not.toContain("secret");
      expect(wire).not.toContain("sk-live");
      expect(wire).not.toMatch(/\bat .+:\d+:\d+/);
    } finally {
      await served.close();
      await agent.close();
    }
  });

  it("HTTP-level refusals answer in JSON without a stack: a body over 100 kB is 413, an unknown path 404, bad JSON a JSON-RPC parse error", async () => {
    const served = await serve();
    try {
      const post = (path: string, body: string) =>
        fetch(`${served.url}${path}`, { method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0" }, body });
      const big = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x".repeat(200_000) }] } },
      });
      const tooLarge = await post("", big);
      expect(tooLarge.status).toBe(413);
      expect(await tooLarge.json()).toEqual({ error: "request body too large" });
      const missing = await fetch(`${served.url}/nothing/here`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ error: "not found" });
      const bad = await post("", "{bad json");
      expect(await bad.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
      const restBad = await post("/rest/v1/message:send", "{bad json");
      expect(restBad.status).toBe(400);
      for (const body of [JSON.stringify(await (await post("", big)).json()), await (await post("/rest/v1/message:send", "{bad")).text()]) {
        expect(body).not.toMatch(/\bat .+:\d+:\d+|node_modules/);
      }
    } finally {
      await served.close();
    }
  });

  it("a message without text is rejected, not run", async () => {
    const served = await serve();
    try {
      const client = await sdkClient(served.url);
      const task = asTask(await client.sendMessage(send([data({ hello: 1 })])));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    } finally {
      await served.close();
    }
  });
});
