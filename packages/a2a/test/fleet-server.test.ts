// The A2A server fronting a fleet, driven by the official @a2a-js/sdk client: two stateless
// front-ends on one PostgreSQL (task store and fleet), workers on the testkit's fake codex CLI.
// Sends and streams submit fleet runs; GetTask, SubscribeToTask, answers and CancelTask work on
// either front-end, including one started after the other was closed mid-run.
import { createServer, type AddressInfo } from "node:net";
import { TaskState, type Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { Fleet } from "@adaptor/fleet";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { Agent } from "adaptor";
import { afterEach, describe, expect, it } from "vitest";
import { fakeCliStoreView, fakeCodex, fakeCodexSteps, fakeRun } from "../../fleet/test/support/fake-codex.js";
import { processesWith, until } from "../../fleet/test/support/processes.js";
import { a2aFleetServer, FLEET_RUN_METADATA_KEY, RESPONSE_ARTIFACT_ID, type A2AFleetRunOptions, type A2AServer } from "../src/index.js";
import { PostgresTaskStore } from "../src/postgres/index.js";
import { freshSchema, PG_URL, skipWithoutServer } from "../../fleet/test/support/pg.js";
import { asTask, data, listen, partsText, sdkClient, send, text } from "./support.js";

const approvalOf = (task: Task | undefined) => {
  const part = task?.status?.message?.parts.find((p) => p.content?.$case === "data");
  return part?.content?.$case === "data" ? (part.content.value as { approval: Record<string, unknown> }).approval : undefined;
};
/** A send's configuration that returns the task at once (the SDK's non-blocking send). */
const IMMEDIATELY = { returnImmediately: true, acceptedOutputModes: [], historyLength: undefined, taskPushNotificationConfig: undefined };
const runIdOf = (task: Task) => (task.metadata?.[FLEET_RUN_METADATA_KEY] as { runId: string }).runId;

/** What a stream delivered: the states in order, the answer text as a client assembles it, the last task seen. */
interface Streamed {
  states: TaskState[];
  text: string;
  task: Task | undefined;
}
async function drain(
  stream: AsyncIterable<{ payload?: { $case: string; value: unknown } | undefined }>,
  until?: TaskState,
): Promise<Streamed> {
  const out: Streamed = { states: [], text: "", task: undefined };
  for await (const event of stream) {
    const payload = event.payload;
    if (payload?.$case === "task") out.task = payload.value as Task;
    if (payload?.$case === "statusUpdate") {
      const state = (payload.value as { status?: { state: TaskState } }).status?.state;
      if (state !== undefined) out.states.push(state);
      if (state === until) break;
    }
    if (payload?.$case === "artifactUpdate") {
      const update = payload.value as { append: boolean; artifact?: { parts: Parameters<typeof partsText>[0] } };
      out.text = (update.append ? out.text : "") + partsText(update.artifact?.parts);
    }
  }
  return out;
}

if (!PG_URL) {
  skipWithoutServer("a2aFleetServer");
} else {
  const url = PG_URL;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A fleet host on `schema` (its own pool and LISTEN connection, as on another machine), with a worker when asked. */
  async function fleetHost(schema: string, worker = false) {
    const store = new PostgresThreadStore({ connectionString: url, schema: `${schema}_threads` });
    await store.migrate();
    const fleet = new Fleet({ connectionString: url, schema, threadStore: fakeCliStoreView(store) });
    await fleet.start();
    if (worker)
      await fleet.worker(({ threadStore }) => new Agent(fakeCodex("unused"), { threadStore: threadStore!, spawn: true }), {
        concurrency: 2,
      });
    closers.push(async () => {
      await fleet.close();
      await store.close();
    });
    return { fleet, store };
  }

  /** A stateless A2A front-end: its own fleet handle and task store on the shared database. */
  async function frontEnd(schema: string, runOptions: A2AFleetRunOptions) {
    const { fleet } = await fleetHost(schema);
    const taskStore = new PostgresTaskStore({ connectionString: url, schema: `${schema}_a2a` });
    await taskStore.migrate();
    const listening = await listen();
    const server: A2AServer = a2aFleetServer(fleet, {
      url: listening.url,
      card: { name: "Fleet", description: "Runs on the fleet's workers" },
      taskStore,
      runOptions,
    });
    listening.handle(server.handler);
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await server.close();
      await listening.close();
      await taskStore.close();
    };
    closers.push(close);
    const client: Client = await sdkClient(listening.url);
    return { fleet, client, close, url: listening.url };
  }

  describe("a2aFleetServer", () => {
    it("a streamed message runs on a worker; after that front-end closes, another answers GetTask and the context's next message is the thread's next turn", async () => {
      const schema = freshSchema("a2a_fleet");
      const { store } = await fleetHost(schema, true);
      const a = await frontEnd(schema, fakeRun(fakeCodexSteps("hello from the fleet")));
      const streamed = await drain(a.client.sendMessageStream(send([text("say hello")])));
      expect(streamed.states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(streamed.text).toBe("hello from the fleet");
      const first = streamed.task!;
      await a.close();

      const b = await frontEnd(schema, fakeRun(fakeCodexSteps("the second turn", { resume: true })));
      const got = await b.client.getTask({ tenant: "", id: first.id });
      expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(got.artifacts.map((artifact) => [artifact.artifactId, partsText(artifact.parts)])).toEqual([
        [RESPONSE_ARTIFACT_ID, "hello from the fleet"],
      ]);
      expect(got.history.map((message) => partsText(message.parts))).toContain("say hello");

      const next = send([text("and again")]);
      next.message.contextId = first.contextId;
      const second = asTask(await b.client.sendMessage(next));
      expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(partsText(second.artifacts[0]?.parts)).toBe("the second turn");
      expect((await store.resolve({ key: `a2a:${first.contextId}` }))?.revision).toBe(2);
    });

    it("a front-end closed between a send and a get: another one resumes the task's stream with SubscribeToTask and GetTask reads it completed", async () => {
      const schema = freshSchema("a2a_fleet");
      await fleetHost(schema, true);
      const a = await frontEnd(schema, fakeRun(fakeCodexSteps("finished after the restart", { sleepMs: 1500 })));
      const sent = send([text("take your time")]);
      const started = asTask(await a.client.sendMessage({ ...sent, configuration: IMMEDIATELY }));
      expect(started.status?.state).toBe(TaskState.TASK_STATE_WORKING);
      await a.close();

      const b = await frontEnd(schema, {});
      const resumed = await drain(b.client.resubscribeTask({ tenant: "", id: started.id }));
      expect(resumed.task?.id).toBe(started.id);
      expect(resumed.states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(resumed.text).toBe("finished after the restart");
      const got = await b.client.getTask({ tenant: "", id: started.id });
      expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(partsText(got.artifacts[0]?.parts)).toBe("finished after the restart");
    });

    it("GetTask on another front-end brings a task nobody follows up to date with its run", async () => {
      const schema = freshSchema("a2a_fleet");
      await fleetHost(schema, true);
      const a = await frontEnd(schema, fakeRun(fakeCodexSteps("read from the run's log")));
      const started = asTask(await a.client.sendMessage({ ...send([text("go")]), configuration: IMMEDIATELY }));
      await a.close();
      // The run finishes with no front-end following it.
      const b = await frontEnd(schema, {});
      await b.fleet.handle(runIdOf(started)).result();
      const got = await b.client.getTask({ tenant: "", id: started.id });
      expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(partsText(got.artifacts[0]?.parts)).toBe("read from the run's log");
    });

    it("an approval asked on a worker is answered through the other front-end exactly once; the losing answer is refused and the task completes", async () => {
      const schema = freshSchema("a2a_fleet");
      await fleetHost(schema, true);
      const runOptions = fakeRun(fakeCodexSteps("after the approval", { ask: "npm test", sleepMs: 3000 }));
      const a = await frontEnd(schema, runOptions);
      const b = await frontEnd(schema, runOptions);
      const asked = await drain(a.client.sendMessageStream(send([text("run the tests")])), TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(asked.states.at(-1)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const waiting = await b.client.getTask({ tenant: "", id: asked.task!.id });
      expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const approval = approvalOf(waiting);
      expect(approval).toMatchObject({ kind: "permission", toolName: "shell", waiting: 1 });
      const id = String(approval?.["id"]);
      // Answers that do not fit, or name an approval that does not wait, leave it waiting and say so.
      const wrongKind = asTask(await b.client.sendMessage(send([data({ decision: "answer", choice: "x" })], waiting.id)));
      expect(wrongKind.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(partsText(wrongKind.status?.message?.parts)).toMatch(/^that answer does not fit the waiting approval\. shell: npm test/);
      const wrongId = asTask(await a.client.sendMessage(send([data({ decision: "approve", id: "nope" })], waiting.id)));
      expect(partsText(wrongId.status?.message?.parts)).toContain(`no waiting approval has the id "nope" (waiting: ${id})`);
      expect(approvalOf(wrongId)).toMatchObject({ id, waiting: 1 });

      // The answer returns at once (the run then works for 3 s): the losing one races a running task.
      const answered = asTask(
        await b.client.sendMessage({ ...send([data({ decision: "approve", id })], waiting.id), configuration: IMMEDIATELY }),
      );
      expect(answered.status?.state).not.toBe(TaskState.TASK_STATE_COMPLETED);
      const losing = await a.client.sendMessage(send([data({ decision: "deny", id })], waiting.id)).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      expect(losing?.message).toContain(`approval ${id} of task ${waiting.id} was already answered by another message`);
      // Without an id, a message on the task that no longer waits is refused too.
      const late = await a.client.sendMessage(send([text("approve")], waiting.id)).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      expect(late?.message).toMatch(/is not waiting for input|terminal state \(completed\)/);

      const done = await b.fleet.handle(runIdOf(waiting)).result();
      expect(done.text).toBe("after the approval");
      const resolved: unknown[] = [];
      for await (const { event } of b.fleet.handle(runIdOf(waiting)).events()) {
        const notice = event as { type: string; kind?: string; data?: { id?: string; outcome?: string } };
        if (notice.type === "notice" && notice.kind === "approval.resolved") resolved.push(notice.data);
      }
      expect(resolved).toMatchObject([{ id, outcome: "approved" }]);
      const got = await a.client.getTask({ tenant: "", id: waiting.id });
      expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(partsText(got.artifacts[0]?.parts)).toBe("after the approval");
    });

    it("CancelTask on the other front-end cancels the fleet run on its worker (its CLI ends) and the stream on the first ends canceled", async () => {
      const schema = freshSchema("a2a_fleet");
      const marker = `A2A_FLEET_CANCEL_${schema}`;
      await fleetHost(schema, true);
      const runOptions = { env: { ...fakeRun(fakeCodexSteps("never", { sleepMs: 120_000 })).env, [marker]: "1" } };
      const a = await frontEnd(schema, runOptions);
      const b = await frontEnd(schema, runOptions);
      const events = a.client.sendMessageStream(send([text("a long one")]))[Symbol.asyncIterator]();
      const first = await events.next();
      const task = (first.value as { payload: { value: Task } }).payload.value;
      const rest = drain({ [Symbol.asyncIterator]: () => events });
      await until(() => processesWith(marker).length > 0, "the fake CLI");
      const canceled = await b.client.cancelTask({ tenant: "", id: task.id, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(partsText(canceled.status?.message?.parts)).toBe("cancelled: the task was canceled");
      expect(canceled.status?.message?.metadata?.["adaptor.failure"]).toEqual({ code: "cancelled", retryable: false });
      expect((await rest).states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
      await until(() => processesWith(marker).length === 0, "the cancelled run's CLI to end");
      expect((await a.client.getTask({ tenant: "", id: task.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    });

    it("a task store whose database is down: SendMessage and GetTask answer a JSON-RPC internal error with a fixed message, not the database's address", async () => {
      const schema = freshSchema("a2a_fleet_down");
      const { fleet } = await fleetHost(schema);
      // A port nobody listens on: every connection of the task store is refused.
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
      const { port } = probe.address() as AddressInfo;
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      const taskStore = new PostgresTaskStore({
        connectionString: `postgresql://nobody:pw@127.0.0.1:${port}/none`,
        schema: `${schema}_a2a`,
      });
      const listening = await listen();
      const server = a2aFleetServer(fleet, { url: listening.url, card: { name: "Fleet", description: "d" }, taskStore });
      listening.handle(server.handler);
      closers.push(async () => {
        await server.close();
        await listening.close();
        await taskStore.close();
      });
      const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] };
      for (const [method, params] of [
        ["SendMessage", { message }],
        ["GetTask", { id: "t1" }],
      ] as const) {
        const response = await fetch(listening.url, {
          method: "POST",
          headers: { "content-type": "application/json", "a2a-version": "1.0" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        });
        const body = (await response.json()) as { error?: unknown };
        expect(body.error, method).toEqual({ code: -32603, message: "internal error" });
        expect(JSON.stringify(body)).not.toContain(String(port));
      }
    });
  });
}
