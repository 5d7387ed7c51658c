import { Role, TaskState, type Artifact, type Part, type Task } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import { AgentEvent, InMemoryTaskStore, ResultManager, ServerCallContext, type TaskStore } from "@a2a-js/sdk/server";
import { describe, expect, it } from "vitest";
import { MemoryTaskStore } from "./memory-task-store.js";

const context = new ServerCallContext();
const textPart = (value: string): Part => ({
  content: { $case: "text", value },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});
const artifact = (text: string): Artifact => ({
  artifactId: "response",
  name: "response",
  description: "",
  parts: [textPart(text)],
  metadata: undefined,
  extensions: [],
});
const task = (id: string, contextId: string, state: TaskState, timestamp: string): Task => ({
  id,
  contextId,
  status: { state, message: undefined, timestamp },
  artifacts: [artifact(`answer of ${id}`)],
  history: [
    {
      messageId: `m-${id}`,
      contextId,
      taskId: id,
      role: Role.ROLE_USER,
      parts: [textPart("go")],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
  ],
  metadata: { n: { id } },
});

/** The SDK's `ResultManager` recording a task, three appended chunks, a status and a whole-text chunk, as a streamed run does. */
async function streamInto(store: TaskStore): Promise<Task | undefined> {
  const results = new ResultManager(store, context);
  await results.processEvent(
    AgentEvent.task({ ...task("t1", "c1", TaskState.TASK_STATE_WORKING, "2026-01-01T00:00:00.000Z"), artifacts: [] }),
  );
  for (const [i, text] of ["Hello", ", ", "world"].entries())
    await results.processEvent(
      AgentEvent.artifactUpdate({
        taskId: "t1",
        contextId: "c1",
        artifact: artifact(text),
        append: i > 0,
        lastChunk: false,
        metadata: undefined,
      }),
    );
  await results.processEvent(
    AgentEvent.artifactUpdate({
      taskId: "t1",
      contextId: "c1",
      artifact: artifact("Hello, world"),
      append: false,
      lastChunk: true,
      metadata: undefined,
    }),
  );
  await results.processEvent(
    AgentEvent.statusUpdate({
      taskId: "t1",
      contextId: "c1",
      status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: "2026-01-01T00:00:01.000Z" },
      metadata: { done: true },
    }),
  );
  return store.load("t1", context);
}

describe("MemoryTaskStore", () => {
  it("records a streamed run through the SDK's ResultManager exactly as the SDK's InMemoryTaskStore does", async () => {
    const ours = await streamInto(new MemoryTaskStore());
    expect(ours).toEqual(await streamInto(new InMemoryTaskStore()));
    expect(ours?.artifacts[0]?.parts).toEqual([textPart("Hello, world")]);
  });

  it("keeps appended chunks as their own parts, in order, while the answer streams", async () => {
    const store = new MemoryTaskStore();
    const results = new ResultManager(store, context);
    await results.processEvent(
      AgentEvent.task({ ...task("t1", "c1", TaskState.TASK_STATE_WORKING, "2026-01-01T00:00:00.000Z"), artifacts: [] }),
    );
    for (let i = 0; i < 50; i++)
      await results.processEvent(
        AgentEvent.artifactUpdate({
          taskId: "t1",
          contextId: "c1",
          artifact: artifact(`${i},`),
          append: i > 0,
          lastChunk: false,
          metadata: undefined,
        }),
      );
    const loaded = await store.load("t1", context);
    expect(loaded?.artifacts[0]?.parts).toEqual(Array.from({ length: 50 }, (_, i) => textPart(`${i},`)));
  });

  it("a caller changing what it saved or loaded, at any depth it can change, does not change the stored task", async () => {
    const store = new MemoryTaskStore();
    const saved = task("t1", "c1", TaskState.TASK_STATE_WORKING, "2026-01-01T00:00:00.000Z");
    await store.save(saved, context);
    (saved.artifacts[0]!.parts[0]!.content as { value: string }).value = "changed after save";
    saved.history[0]!.parts = [];
    saved.status!.state = TaskState.TASK_STATE_FAILED;
    (saved.metadata as Record<string, unknown>)["n"] = "changed";

    const loaded = (await store.load("t1", context))!;
    loaded.artifacts[0]!.parts = [...loaded.artifacts[0]!.parts, textPart(" more")];
    loaded.artifacts.push(artifact("another"));
    loaded.history = [];
    loaded.status = { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: "" };
    loaded.metadata = {};

    expect(await store.load("t1", context)).toEqual(task("t1", "c1", TaskState.TASK_STATE_WORKING, "2026-01-01T00:00:00.000Z"));
  });

  it("a load's lists are its own; the values it shares with the stored task are frozen, a change in place throws", async () => {
    const store = new MemoryTaskStore();
    await store.save(task("t1", "c1", TaskState.TASK_STATE_WORKING, "2026-01-01T00:00:00.000Z"), context);
    const loaded = (await store.load("t1", context))!;
    loaded.artifacts[0]!.parts.push(textPart("x"));
    loaded.history.push(loaded.history[0]!);
    expect(() => ((loaded.artifacts[0]!.parts[0]!.content as { value: string }).value = "x")).toThrow(TypeError);
    expect(() => ((loaded.history[0]!.parts[0]!.content as { value: string }).value = "x")).toThrow(TypeError);
    expect(() => (loaded.status!.state = TaskState.TASK_STATE_FAILED)).toThrow(TypeError);
    expect(await store.load("t1", context)).toEqual(task("t1", "c1", TaskState.TASK_STATE_WORKING, "2026-01-01T00:00:00.000Z"));
  });

  it("scopes tasks by tenant and owner as the SDK's stores do", async () => {
    const store = new MemoryTaskStore();
    const tenantB = new ServerCallContext({ tenant: "b" });
    await store.save(task("t1", "c1", TaskState.TASK_STATE_WORKING, "2026-01-01T00:00:00.000Z"), context);
    expect(await store.load("t1", tenantB)).toBeUndefined();
    expect((await store.list({ tenant: "b" } as never, tenantB)).tasks).toEqual([]);
  });

  it("lists like the SDK's InMemoryTaskStore: filters, newest status first, pages, artifacts only when asked", async () => {
    const ours = new MemoryTaskStore();
    const sdk = new InMemoryTaskStore();
    const tasks = [
      task("a", "c1", TaskState.TASK_STATE_COMPLETED, "2026-01-01T00:00:03.000Z"),
      task("b", "c1", TaskState.TASK_STATE_WORKING, "2026-01-01T00:00:01.000Z"),
      task("c", "c2", TaskState.TASK_STATE_COMPLETED, "2026-01-01T00:00:02.000Z"),
      task("d", "c1", TaskState.TASK_STATE_COMPLETED, "2026-01-01T00:00:03.000Z"),
    ];
    for (const each of tasks) {
      await ours.save(each, context);
      await sdk.save(each, context);
    }
    const requests = [
      {},
      { includeArtifacts: true },
      { contextId: "c1" },
      { status: TaskState.TASK_STATE_COMPLETED },
      { statusTimestampAfter: "2026-01-01T00:00:01.500Z" },
      { pageSize: 2 },
    ];
    for (const request of requests) expect(await ours.list(request as never, context)).toEqual(await sdk.list(request as never, context));
    const first = await ours.list({ pageSize: 2 } as never, context);
    const second = { pageSize: 2, pageToken: first.nextPageToken };
    expect(await ours.list(second as never, context)).toEqual(await sdk.list(second as never, context));
    expect((await ours.list(second as never, context)).tasks.map((each) => each.id)).toEqual(["c", "b"]);
    await expect(ours.list({ pageToken: "bm8tYmFy" } as never, context)).rejects.toBeInstanceOf(RequestMalformedError);
  });
});
