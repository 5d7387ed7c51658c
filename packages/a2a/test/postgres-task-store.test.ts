// The PostgreSQL task store: A2A tasks survive a restart of the server (a new instance on the same
// database answers GetTask and continues the task's conversation), and two servers writing one
// task through the SDK's load-change-save do not undo each other's updates.
import { Role, TaskState, type Message, type Task } from "@a2a-js/sdk";
import { AgentEvent, ResultManager, ServerCallContext } from "@a2a-js/sdk/server";
import { ReferenceDriver } from "@adaptor/driver/testing";
import { DriverError, ErrCode } from "@adaptor/errors";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent } from "adaptor";
import pg from "pg";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { RESPONSE_ARTIFACT_ID } from "../src/index.js";
import { PostgresTaskStore } from "../src/postgres/index.js";
import { freshSchema, PG_URL, skipWithoutServer } from "../../fleet/test/support/pg.js";
import { asTask, partsText, sdkClient, send, serve, text } from "./support.js";

const message = (text: string, role = Role.ROLE_USER): Message => ({
  messageId: randomUUID(),
  contextId: "ctx",
  taskId: "t1",
  role,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const status = (state: TaskState, at: Date, note?: Message) => ({ state, message: note, timestamp: at.toISOString() });

if (!PG_URL) {
  skipWithoutServer("PostgresTaskStore");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  async function store(schema: string): Promise<PostgresTaskStore> {
    const made = new PostgresTaskStore({ connectionString: url, schema });
    await made.migrate();
    closers.push(() => made.close());
    return made;
  }

  describe("PostgresTaskStore", () => {
    it("a task survives a server restart: a new server on the same database answers GetTask and a message in its context continues the thread", async () => {
      const schema = freshSchema("a2a_tasks");
      const threadStore = new MemoryThreadStore();
      // The driver's conversations, shared like a CLI's session files on one machine.
      const sessions = new Map<string, string[]>();
      const host = async () => {
        const taskStore = new PostgresTaskStore({ connectionString: url, schema });
        await taskStore.migrate();
        const agent = new Agent(new ReferenceDriver({ sessions }), { threadStore });
        const served = await serve(({ contextId }) => agent.thread(`a2a:${contextId}`), { taskStore });
        return {
          served,
          async close() {
            await served.close();
            await agent.close();
            await taskStore.close();
          },
        };
      };
      const first = await host();
      let done: Task;
      try {
        done = asTask(await (await sdkClient(first.served.url)).sendMessage(send([text("hello there")])));
        expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      } finally {
        await first.close();
      }

      const second = await host();
      closers.push(() => second.close());
      const client = await sdkClient(second.served.url, "HTTP+JSON");
      const got = await client.getTask({ tenant: "", id: done.id });
      expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(got.contextId).toBe(done.contextId);
      expect(got.history.map((m) => partsText(m.parts))).toEqual(done.history.map((m) => partsText(m.parts)));
      expect(got.history[0] && partsText(got.history[0].parts)).toBe("hello there");
      expect(got.artifacts.map((a) => [a.artifactId, partsText(a.parts)])).toEqual(
        done.artifacts.map((a) => [a.artifactId, partsText(a.parts)]),
      );
      expect(got.artifacts[0]?.artifactId).toBe(RESPONSE_ARTIFACT_ID);

      // The next message of the conversation, on the new server: the thread's second turn.
      const next = send([text("and again")]);
      next.message.contextId = done.contextId;
      const again = asTask(await client.sendMessage(next));
      expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(again.contextId).toBe(done.contextId);
      expect(partsText(again.artifacts[0]?.parts)).toBe("Reference reply #2: and again");
      expect((await threadStore.resolve({ key: `a2a:${done.contextId}` }))?.revision).toBe(2);
      const listed = await client.listTasks({
        tenant: "",
        contextId: done.contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageToken: "",
        statusTimestampAfter: undefined,
      });
      expect(listed.tasks.map((t) => t.id).sort()).toEqual([done.id, again.id].sort());
      expect(listed.totalSize).toBe(2);
    });

    it("two servers on one database: a save from one that loaded the task before the other's updates keeps those updates (history, status, artifact)", async () => {
      const schema = freshSchema("a2a_tasks");
      const serverA = await store(schema);
      const serverB = await store(schema);
      const context = new ServerCallContext();
      const first = message("fix the build");
      const start = new Date();
      // Server A runs the task: the SDK's ResultManager records each event (load, change, save).
      const writerA = new ResultManager(serverA, context);
      writerA.setContext(first);
      await writerA.processEvent(
        AgentEvent.task({
          id: "t1",
          contextId: "ctx",
          status: status(TaskState.TASK_STATE_WORKING, start),
          artifacts: [],
          history: [first],
          metadata: undefined,
        }),
      );
      // Server B receives a message on the task: the SDK loads the task and appends the message...
      const loadedByB = (await serverB.load("t1", context))!;
      const second = message("also run the tests");
      loadedByB.history = [...loadedByB.history, second];
      // ...while server A's run goes on: an artifact chunk and a new status.
      await writerA.processEvent(
        AgentEvent.artifactUpdate({
          taskId: "t1",
          contextId: "ctx",
          artifact: {
            artifactId: "response",
            name: "response",
            description: "",
            parts: [first.parts[0]!],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: false,
          metadata: undefined,
        }),
      );
      const asked = message("approve `make`?", Role.ROLE_AGENT);
      await writerA.processEvent(
        AgentEvent.statusUpdate({
          taskId: "t1",
          contextId: "ctx",
          status: status(TaskState.TASK_STATE_INPUT_REQUIRED, new Date(start.getTime() + 1000), asked),
          metadata: undefined,
        }),
      );
      // ...then B saves the whole task it loaded before them.
      await serverB.save(loadedByB, context);

      const merged = (await serverA.load("t1", context))!;
      expect(merged.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(merged.artifacts.map((a) => a.artifactId)).toEqual(["response"]);
      expect(merged.history.map((m) => partsText(m.parts))).toEqual(["fix the build", "approve `make`?", "also run the tests"]);

      // A new status from B applies even when B's clock is behind A's (it is not one the task left).
      const writerB = new ResultManager(serverB, context);
      await writerB.processEvent(
        AgentEvent.statusUpdate({
          taskId: "t1",
          contextId: "ctx",
          status: status(TaskState.TASK_STATE_WORKING, new Date(start.getTime() - 60_000)),
          metadata: undefined,
        }),
      );
      expect((await serverA.load("t1", context))?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
      // A terminal status is never left, whoever writes after it.
      const staleForA = (await serverA.load("t1", context))!;
      await writerB.processEvent(
        AgentEvent.statusUpdate({
          taskId: "t1",
          contextId: "ctx",
          status: status(TaskState.TASK_STATE_COMPLETED, new Date()),
          metadata: undefined,
        }),
      );
      staleForA.status = status(TaskState.TASK_STATE_WORKING, new Date(Date.now() + 5_000));
      await serverA.save(staleForA, context);
      expect((await serverB.load("t1", context))?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it("concurrent saves of one task from two stores lose no history message", async () => {
      const schema = freshSchema("a2a_tasks");
      const stores = [await store(schema), await store(schema)];
      const context = new ServerCallContext();
      const base: Task = {
        id: "t1",
        contextId: "ctx",
        status: status(TaskState.TASK_STATE_WORKING, new Date()),
        artifacts: [],
        history: [],
        metadata: undefined,
      };
      await stores[0]!.save(base, context);
      const texts = Array.from({ length: 20 }, (_, i) => `message ${i}`);
      // Each save is the SDK's pattern for an incoming message: load, append, save.
      await Promise.all(
        texts.map(async (value, i) => {
          const own = stores[i % 2]!;
          const task = (await own.load("t1", context))!;
          task.history = [...task.history, message(value)];
          await own.save(task, context);
        }),
      );
      const history = (await stores[1]!.load("t1", context))!.history.map((m) => partsText(m.parts));
      expect(history.sort()).toEqual([...texts].sort());
    });

    it("lists a scope's tasks by context and state, newest status first, a page at a time", async () => {
      const taskStore = await store(freshSchema("a2a_tasks"));
      const context = new ServerCallContext();
      const t0 = Date.parse("2026-01-01T00:00:00Z");
      for (let i = 0; i < 5; i++) {
        await taskStore.save(
          {
            id: `t${i}`,
            contextId: i < 4 ? "c1" : "c2",
            status: status(i === 2 ? TaskState.TASK_STATE_FAILED : TaskState.TASK_STATE_COMPLETED, new Date(t0 + i * 1000)),
            artifacts: [{ artifactId: "response", name: "", description: "", parts: [], metadata: undefined, extensions: [] }],
            history: [],
            metadata: undefined,
          },
          context,
        );
      }
      const query = {
        tenant: "",
        contextId: "c1",
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageToken: "",
        statusTimestampAfter: undefined,
      };
      const page1 = await taskStore.list({ ...query, pageSize: 2 }, context);
      expect(page1.tasks.map((t) => t.id)).toEqual(["t3", "t2"]);
      expect(page1.totalSize).toBe(4);
      expect(page1.tasks[0]?.artifacts).toEqual([]);
      const page2 = await taskStore.list({ ...query, pageSize: 2, pageToken: page1.nextPageToken, includeArtifacts: true }, context);
      expect(page2.tasks.map((t) => t.id)).toEqual(["t1", "t0"]);
      expect(page2.tasks[0]?.artifacts.map((a) => a.artifactId)).toEqual(["response"]);
      expect(page2.nextPageToken).toBe("");
      const failed = await taskStore.list({ ...query, contextId: "", status: TaskState.TASK_STATE_FAILED }, context);
      expect(failed.tasks.map((t) => t.id)).toEqual(["t2"]);
      const after = await taskStore.list({ ...query, contextId: "", statusTimestampAfter: new Date(t0 + 2500).toISOString() }, context);
      expect(after.tasks.map((t) => t.id)).toEqual(["t4", "t3"]);
      // Another owner sees none of them.
      const other = new ServerCallContext({ user: { isAuthenticated: true, userName: "mallory" } });
      expect((await taskStore.list({ ...query, contextId: "" }, other)).tasks).toEqual([]);
      expect(await taskStore.load("t0", other)).toBeUndefined();
    });

    it("without migrate() a load is a NOT_FOUND DriverError; after close() DEVICE_DISCONNECTED; a pool passed in stays open", async () => {
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      closers.push(() => pool.end());
      const taskStore = new PostgresTaskStore({ pool, schema: freshSchema("a2a_tasks") });
      const missing = await taskStore.load("t1", new ServerCallContext()).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(DriverError);
      expect((missing as DriverError).code).toBe(ErrCode.NotFound);
      await taskStore.migrate();
      await taskStore.migrate();
      expect(await taskStore.load("t1", new ServerCallContext())).toBeUndefined();
      await taskStore.close();
      const closed = await taskStore.load("t1", new ServerCallContext()).catch((e: unknown) => e);
      expect((closed as { code?: string }).code).toBe(ErrCode.DeviceDisconnected);
      expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]?.one).toBe(1);
      expect(() => new PostgresTaskStore({})).toThrow(TypeError);
    });
  });
}

describe("PostgresTaskStore options", () => {
  it("refuses a malformed connectionString at construction with a TypeError naming it, never quoting the password", () => {
    for (const connectionString of ["postgres://u:SuperSecretPw42@127.0.0.1:notaport/db", "postgres://u:SuperSecretPw42@[::1"]) {
      expect(() => new PostgresTaskStore({ connectionString })).toThrow(
        /^PostgresTaskStore: connectionString is not a valid connection URL/,
      );
      expect(() => new PostgresTaskStore({ connectionString })).not.toThrow(/SuperSecretPw42/);
    }
  });
});
