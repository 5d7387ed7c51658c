// A client that stops reading its event stream: the server hands the response one event at a time
// while the socket takes it, so what it buffers stays under a bound; after writeTimeoutMs without
// a drain the connection is dropped. The task goes on and completes, and a reader that keeps
// reading gets the whole answer. JSON-RPC SendStreamingMessage, and an HTTP+JSON SubscribeToTask.
import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { randomUUID } from "node:crypto";
import { TaskState, type Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { Agent } from "adaptor";
import { afterEach, describe, expect, it } from "vitest";
import { a2aServer } from "../src/index.js";
import { deltasDriver, listen, partsText, sdkClient, type Listening } from "./support.js";

/** 24 MB of answer in 384 deltas of 64 KiB: far more than the loopback socket's buffers take. */
const DELTAS = Array.from({ length: 384 }, (_, i) => `${i}:`.padEnd(64 * 1024, "abcdefgh"));
const ANSWER = DELTAS.join("");

/**
 * A response of the server, watched: the most bytes it held after any write, the largest write (one
 * event), its high-water mark, and whether the server destroyed it.
 */
interface Watched {
  readonly url: string;
  maxBuffered: number;
  maxWrite: number;
  readonly highWaterMark: number;
  dropped: boolean;
  readonly closed: Promise<void>;
}

let listening: Listening | undefined;
let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
  await listening?.close();
  listening = undefined;
});

/** An `a2aServer` on `agent` with `writeTimeoutMs` 5 s (a reader in this busy process keeps up well within it), every response it writes watched. */
async function watchedServer(agent: Agent): Promise<{ url: string; responses: Watched[] }> {
  listening = await listen();
  const server = a2aServer(agent, { url: listening.url, card: { name: "Big", description: "Answers at length" }, writeTimeoutMs: 5_000 });
  cleanup.push(
    () => server.close(),
    () => agent.close(),
  );
  const responses: Watched[] = [];
  listening.handle((req: IncomingMessage, res: ServerResponse) => {
    const watched: Watched = {
      url: req.url ?? "",
      maxBuffered: 0,
      maxWrite: 0,
      highWaterMark: res.writableHighWaterMark,
      dropped: false,
      closed: once(res, "close").then(() => undefined),
    };
    responses.push(watched);
    const destroy = res.destroy.bind(res);
    res.destroy = ((error?: Error) => {
      watched.dropped = true;
      return destroy(error);
    }) as typeof res.destroy;
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    res.write = ((...args: unknown[]) => {
      const accepted = write(...args);
      watched.maxWrite = Math.max(watched.maxWrite, Buffer.byteLength(args[0] as string | Buffer));
      watched.maxBuffered = Math.max(watched.maxBuffered, res.writableLength);
      return accepted;
    }) as typeof res.write;
    server.handler(req, res);
  });
  return { url: listening.url, responses };
}

/**
 * Sends a raw HTTP request and reads the answer only until it holds its first event (the task),
 * then stops reading for good: the server's writes back up. Resolves with the bytes read.
 */
function stalledRequest(url: string, head: string, body: string): { socket: Socket; read: Promise<string> } {
  const { port } = new URL(url);
  const socket = connect(Number(port), "127.0.0.1");
  socket.write(
    `${head} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\na2a-version: 1.0\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.on("error", () => undefined);
  const read = new Promise<string>((resolve) => {
    let bytes = "";
    const onData = (chunk: Buffer): void => {
      bytes += chunk.toString("latin1");
      if (!/"task":\{"id":"[^"]+"/.test(bytes)) return;
      socket.off("data", onData);
      socket.pause();
      resolve(bytes);
    };
    socket.on("data", onData);
  });
  return { socket, read };
}

/** What a reader that reads a whole stream got: the final state, the last chunk's text, the task id. */
interface Read {
  readonly state: string | undefined;
  readonly answer: string;
  readonly taskId: string | undefined;
}

/**
 * Reads a whole SSE answer (JSON-RPC `result`s or HTTP+JSON stream responses). Read with `fetch`:
 * the SDK client refuses an event over 4 MiB, and the last chunk of this answer holds all of it.
 */
async function readAll(response: Response, started?: (taskId: string) => Promise<void>): Promise<Read> {
  const decoder = new TextDecoder();
  let body = "";
  let told = started === undefined;
  for await (const bytes of response.body!) {
    body += decoder.decode(bytes, { stream: true });
    const id = told ? undefined : /"task":\{"id":"([^"]+)"/.exec(body)?.[1];
    if (id !== undefined) {
      told = true;
      await started!(id);
    }
  }
  let state: string | undefined;
  let answer = "";
  let taskId: string | undefined;
  for (const frame of body.split("\n\n")) {
    if (!frame.startsWith("data: ")) continue;
    const event = JSON.parse(frame.slice("data: ".length)) as Record<string, Record<string, unknown>>;
    const result = (event["result"] ?? event) as {
      task?: { id: string };
      statusUpdate?: { status: { state: string } };
      artifactUpdate?: { lastChunk?: boolean; artifact: { parts: { text?: string }[] } };
    };
    taskId ??= result.task?.id;
    if (result.statusUpdate) state = result.statusUpdate.status.state;
    if (result.artifactUpdate?.lastChunk) answer = result.artifactUpdate.artifact.parts.map((part) => part.text ?? "").join("");
  }
  return { state, answer, taskId };
}

const userMessage = () => ({ messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "write a lot" }] });
const jsonRpcStream = () => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: { message: userMessage() } });
const post = (url: string, body: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0" }, body });

/**
 * The response never held more than its high-water mark and one event (and the headers), and that
 * is a small part of the answer: not the answer, nor anything growing with it.
 */
function expectBounded(response: Watched): void {
  expect(response.maxBuffered).toBeLessThanOrEqual(response.highWaterMark + response.maxWrite + 1_024);
  expect(response.maxBuffered).toBeLessThan(ANSWER.length / 4);
}

/** The task once it is completed (read back until it is). */
async function completed(client: Client, id: string): Promise<Task> {
  for (;;) {
    const task = await client.getTask({ tenant: "", id });
    if (task.status?.state === TaskState.TASK_STATE_COMPLETED) return task;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("a client that stops reading its stream", () => {
  it("JSON-RPC SendStreamingMessage: is dropped with the response's buffer bounded; the task completes; a reader alongside gets everything", async () => {
    const agent = new Agent(deltasDriver(DELTAS));
    const { url, responses } = await watchedServer(agent);
    const client = await sdkClient(url);
    const { socket, read } = stalledRequest(url, "POST /", jsonRpcStream());
    cleanup.push(async () => void socket.destroy());
    const first = await read;
    // A reader that reads everything, at the same time.
    const reader = await readAll(await post(url, jsonRpcStream()));
    expect(reader.state).toBe("TASK_STATE_COMPLETED");
    expect(reader.answer.length).toBe(ANSWER.length);
    expect(reader.answer === ANSWER).toBe(true);

    const stalled = responses.find((response) => response.url === "/")!;
    // The server drops the connection (the client never closes its socket).
    await stalled.closed;
    expect(stalled.dropped).toBe(true);
    expectBounded(stalled);

    const taskId = /"task":\{"id":"([^"]+)"/.exec(first)?.[1];
    expect(taskId).toBeDefined();
    const task = await completed(client, taskId!);
    expect(partsText(task.artifacts[0]?.parts) === ANSWER).toBe(true);
  });

  it("HTTP+JSON SubscribeToTask: the stalled subscriber is dropped with its buffer bounded; the task's own stream completes", async () => {
    let open!: () => void;
    const agent = new Agent(deltasDriver(DELTAS, { pauseAfter: 1, open: new Promise<void>((resolve) => (open = resolve)) }));
    const { url, responses } = await watchedServer(agent);
    const client = await sdkClient(url, "HTTP+JSON");
    let socket: Socket | undefined;
    cleanup.push(async () => void socket?.destroy());
    // The task's own stream, read to its end; once it started, a subscriber that stalls, then the run goes on.
    const reader = await readAll(await post(`${url}/rest/message:stream`, JSON.stringify({ message: userMessage() })), async (id) => {
      const stalled = stalledRequest(url, `POST /rest/tasks/${id}:subscribe`, "{}");
      socket = stalled.socket;
      await stalled.read;
      open();
    });
    expect(reader.state).toBe("TASK_STATE_COMPLETED");
    expect(reader.answer === ANSWER).toBe(true);

    const stalled = responses.find((response) => response.url.endsWith(":subscribe"))!;
    await stalled.closed;
    expect(stalled.dropped).toBe(true);
    expectBounded(stalled);
    expect(partsText((await completed(client, reader.taskId!)).artifacts[0]?.parts) === ANSWER).toBe(true);
  });
});
