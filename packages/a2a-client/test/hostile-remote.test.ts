// Our A2A client and delegate() against a remote that does not play fair: answers that never
// end, streams that speak of another task, output without end, failure text of any size.
import type { ServerResponse } from "node:http";
import { DriverError, ErrCode, errorCode, findError, isError } from "@adaptor/errors";
import { describe, expect, it } from "vitest";
import {
  A2AClient,
  a2aDelegation,
  DEFAULT_MAX_DELEGATION_TEXT_CHARS,
  DEFAULT_MAX_RESPONSE_BYTES,
  delegate,
  DelegationError,
  ErrProtocol,
  MAX_REMOTE_MESSAGE_CHARS,
  ProtocolError,
  StreamRecoveryError,
  type A2AStreamEvent,
} from "../src/index.js";
import type { SdkAgent } from "./sdk-server.js";
import { agent, drain, rejection } from "./support.js";
import { invokeTool } from "@adaptor/tool/internal";

/** Writes `chunk()` to `res` for as long as the client reads; resolves with the bytes written once the connection is gone. */
function writeForever(res: ServerResponse, chunk: () => string): Promise<number> {
  let written = 0;
  const more = (): void => {
    while (!res.destroyed) {
      const text = chunk();
      written += Buffer.byteLength(text);
      if (!res.write(text)) break;
    }
    if (!res.destroyed) res.once("drain", more);
  };
  more();
  return new Promise((resolve) => res.once("close", () => resolve(written)));
}
const rpcOf = (req: { body?: unknown }) => (req.body ?? {}) as { id?: unknown; method?: string };
const sseEvent = (id: unknown, result: unknown): string => `data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`;
const working = (id: string) => ({ task: { id, contextId: "ctx", status: { state: "TASK_STATE_WORKING" } } });

describe("an answer larger than maxResponseBytes", () => {
  it("a blocking answer that never ends is dropped with its connection once the limit is passed: ErrProtocol, coded RESOURCE_EXHAUSTED", async () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(16 * 1024 * 1024);
    const remote = await agent();
    let gone: Promise<number> | undefined;
    remote.intercept((req, res, next) => {
      const rpc = rpcOf(req);
      if (rpc.method !== "SendMessage") return next();
      res.writeHead(200, { "content-type": "application/json" });
      res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(rpc.id)},"result":{"task":{"id":"t1","metadata":{"x":"`);
      gone = writeForever(res, () => "A".repeat(64 * 1024));
    });
    const limit = 1024 * 1024;
    await using client = await A2AClient.connect(remote.url, { maxResponseBytes: limit });
    const err = await rejection(client.send("echo x"));
    expect(isError(err, ErrProtocol)).toBe(true);
    expect(errorCode(err)).toBe(ErrCode.ResourceExhausted);
    expect(findError(err, ProtocolError)).toMatchObject({ op: "message/send", reason: `the response is larger than ${limit} bytes` });
    // The remote sees its connection closed (it would write for ever otherwise).
    expect(await gone).toBeLessThan(16 * limit);
  });

  it("an answer whose Content-Length is over the limit is refused on its header (getTask), not read", async () => {
    const remote = await agent();
    remote.intercept((req, res, next) => {
      if (rpcOf(req).method !== "GetTask") return next();
      res.writeHead(200, { "content-type": "application/json", "content-length": String(2048 + 1) });
      res.write("{"); // and nothing more
    });
    await using client = await A2AClient.connect(remote.url, { maxResponseBytes: 2048 });
    const err = await rejection(client.getTask("t1"));
    expect(isError(err, ErrProtocol)).toBe(true);
    expect(errorCode(err)).toBe(ErrCode.ResourceExhausted);
    expect(findError(err, ProtocolError)?.op).toBe("tasks/get");
  });

  it("a maxResponseBytes that is not a positive integer is a TypeError of connect", async () => {
    const remote = await agent();
    for (const value of [0, -1, 1.5, Number.NaN]) {
      await expect(A2AClient.connect(remote.url, { maxResponseBytes: value })).rejects.toThrow(TypeError);
    }
  });
});

describe("a stream is one task's", () => {
  /** A remote whose stream starts task `t-mine`, then sends an artifact and a completion of task `t-other`. */
  async function otherTaskRemote(): Promise<SdkAgent> {
    const remote = await agent();
    remote.intercept((req, res, next) => {
      const rpc = rpcOf(req);
      if (rpc.method !== "SendStreamingMessage") return next();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(sseEvent(rpc.id, working("t-mine")));
      res.write(
        sseEvent(rpc.id, {
          artifactUpdate: { taskId: "t-other", contextId: "ctx9", artifact: { artifactId: "response", parts: [{ text: "INJECTED" }] } },
        }),
      );
      res.end(sseEvent(rpc.id, { statusUpdate: { taskId: "t-other", contextId: "ctx9", status: { state: "TASK_STATE_COMPLETED" } } }));
    });
    return remote;
  }

  it("an event naming another task is ErrProtocol, thrown as is (not recovered), after the events of the stream's own task", async () => {
    const remote = await otherTaskRemote();
    await using client = await A2AClient.connect(remote.url, { recoveryDelayMs: 10 });
    const seen: A2AStreamEvent[] = [];
    const err = await rejection(
      (async () => {
        for await (const event of client.stream("x")) seen.push(event);
      })(),
    );
    expect(seen.map((e) => [e.kind, e.taskId])).toEqual([["task", "t-mine"]]);
    expect(err).not.toBeInstanceOf(StreamRecoveryError);
    expect(isError(err, ErrProtocol)).toBe(true);
    expect(findError(err, ProtocolError)).toMatchObject({
      op: "message/stream",
      reason: "an event of task t-other on the stream of task t-mine",
    });
    expect(remote.requests.map((r) => r.rpcMethod).filter(Boolean)).toEqual(["SendStreamingMessage"]);
  });

  it("delegate() does not return another task's text as its own: DelegationError protocol", async () => {
    const remote = await otherTaskRemote();
    await using client = await A2AClient.connect(remote.url);
    const err = await rejection(delegate(client, "x"));
    expect(findError(err, DelegationError)).toMatchObject({ code: "protocol", metadata: { taskId: "t-mine", op: "message/stream" } });
  });

  it("a stream that answers a task (taskId) with events of another task is refused from its first event", async () => {
    const remote = await otherTaskRemote();
    await using client = await A2AClient.connect(remote.url);
    const err = await rejection(drain(client.stream("approve", { taskId: "t-waiting" })));
    expect(findError(err, ProtocolError)?.reason).toBe("an event of task t-mine on the stream of task t-waiting");
  });
});

describe("an answer about another task than the one asked", () => {
  const completed = (id: string) => ({
    id,
    contextId: "ctx9",
    status: { state: "TASK_STATE_COMPLETED" },
    artifacts: [{ artifactId: "response", parts: [{ text: `answer of ${id}` }] }],
    history: [],
  });
  /**
   * A remote whose stream of task `t-mine` breaks after its first event; the resubscription
   * (`"subscribe"`) sends task `t-other`, or says the task finished and `GetTask` (`"get"`) answers
   * with task `t-other`.
   */
  async function recoveryRemote(mode: "subscribe" | "get"): Promise<SdkAgent> {
    const remote = await agent();
    remote.intercept((req, res, next) => {
      const rpc = rpcOf(req);
      if (rpc.method === "SendStreamingMessage") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        return void res.end(sseEvent(rpc.id, working("t-mine")));
      }
      if (rpc.method === "SubscribeToTask" && mode === "subscribe") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        return void res.end(sseEvent(rpc.id, { task: completed("t-other") }));
      }
      if (rpc.method === "SubscribeToTask") {
        const data = [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "UNSUPPORTED_OPERATION", domain: "a2a-protocol.org" }];
        return void res.json({ jsonrpc: "2.0", id: rpc.id, error: { code: -32004, message: "Task is in a terminal state", data } });
      }
      if (rpc.method === "GetTask") return void res.json({ jsonrpc: "2.0", id: rpc.id, result: completed("t-other") });
      next();
    });
    return remote;
  }

  it.each([
    ["subscribe", "tasks/resubscribe", "an event of task t-other on the stream of task t-mine"],
    ["get", "tasks/get", "an answer about task t-other to a request about task t-mine"],
  ] as const)(
    "a recovery answered with another task (%s) is ErrProtocol, thrown as is: not the stream's end, not a StreamRecoveryError",
    async (mode, op, reason) => {
      const remote = await recoveryRemote(mode);
      await using client = await A2AClient.connect(remote.url, { recoveryDelayMs: 10 });
      const seen: A2AStreamEvent[] = [];
      const err = await rejection(
        (async () => {
          for await (const event of client.stream("x")) seen.push(event);
        })(),
      );
      expect(seen.map((e) => [e.kind, e.taskId])).toEqual([
        ["task", "t-mine"],
        ["recovered", "t-mine"],
      ]);
      expect(findError(err, StreamRecoveryError)).toBeUndefined();
      expect(isError(err, ErrProtocol)).toBe(true);
      expect(findError(err, ProtocolError)).toMatchObject({ op: mode === "get" ? op : "message/stream", reason });
    },
  );

  it.each(["subscribe", "get"] as const)(
    "delegate() whose recovery is answered with another task (%s): DelegationError protocol, not retryable, not that task's text",
    async (mode) => {
      const remote = await recoveryRemote(mode);
      await using client = await A2AClient.connect(remote.url, { recoveryDelayMs: 10 });
      const err = await rejection(delegate(client, "x"));
      expect(findError(err, DelegationError)).toMatchObject({ code: "protocol", retryable: false, metadata: { taskId: "t-mine" } });
    },
  );

  it("getTask, cancelTask and send({ taskId }) answered with another task: ErrProtocol naming both", async () => {
    const remote = await agent();
    remote.intercept((req, res, next) => {
      const rpc = rpcOf(req);
      if (rpc.method === "GetTask" || rpc.method === "CancelTask")
        return void res.json({ jsonrpc: "2.0", id: rpc.id, result: completed("t-other") });
      if (rpc.method === "SendMessage") return void res.json({ jsonrpc: "2.0", id: rpc.id, result: { task: completed("t-other") } });
      next();
    });
    await using client = await A2AClient.connect(remote.url);
    const calls = [
      ["tasks/get", client.getTask("t-mine")],
      ["tasks/cancel", client.cancelTask("t-mine")],
      ["message/send", client.send("approve", { taskId: "t-mine" })],
    ] as const;
    for (const [op, call] of calls) {
      const err = await rejection(call);
      expect(isError(err, ErrProtocol)).toBe(true);
      expect(findError(err, ProtocolError)).toMatchObject({ op, reason: "an answer about task t-other to a request about task t-mine" });
    }
    // A new message (no taskId) may start any task.
    await expect(client.send("hello")).resolves.toMatchObject({ id: "t-other" });
  });
});

describe("what one delegation holds", () => {
  it("artifact chunks that never end: output_too_large at maxTextChars, its cause RESOURCE_EXHAUSTED, the remote task canceled", async () => {
    expect(DEFAULT_MAX_DELEGATION_TEXT_CHARS).toBe(4 * 1024 * 1024);
    const remote = await agent();
    let gone: Promise<number> | undefined;
    remote.intercept((req, res, next) => {
      const rpc = rpcOf(req);
      if (rpc.method !== "SendStreamingMessage") return next();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(sseEvent(rpc.id, working("t-big")));
      let n = 0;
      const chunk = "B".repeat(10_000);
      gone = writeForever(res, () =>
        sseEvent(rpc.id, {
          artifactUpdate: {
            taskId: "t-big",
            contextId: "ctx",
            artifact: { artifactId: "response", parts: [{ text: chunk }] },
            append: n++ > 0,
          },
        }),
      );
    });
    await using client = await A2AClient.connect(remote.url);
    const err = await rejection(delegate(client, "x", { maxTextChars: 100_000 }));
    const failure = findError(err, DelegationError);
    expect(failure).toMatchObject({
      code: "output_too_large",
      retryable: false,
      message:
        "the remote agent's answer is longer than 100000 characters (maxTextChars); the delegation was stopped and the remote task canceled",
      metadata: { taskId: "t-big" },
    });
    expect(findError(failure?.cause, DriverError)?.code).toBe(ErrCode.ResourceExhausted);
    await gone;
    // The cancel request goes out in the background, once the delegation has settled.
    await expect
      .poll(() => remote.requests.map((r) => r.rpcMethod).filter(Boolean), { timeout: 10_000 })
      .toEqual(["SendStreamingMessage", "CancelTask"]);
  });

  it("a final answer longer than maxTextChars (one artifact) is output_too_large too; one within it is returned whole", async () => {
    const remote = await agent();
    await using client = await A2AClient.connect(remote.url);
    const long = "z".repeat(2000);
    await expect(delegate(client, `echo ${long}`, { maxTextChars: 2000 })).rejects.toMatchObject({ code: "output_too_large" });
    await expect(delegate(client, `echo ${long}`, { maxTextChars: 2006 })).resolves.toMatchObject({ text: `echo: ${long}` });
    await expect(delegate(client, "x", { maxTextChars: 0 })).rejects.toThrow(TypeError);
  });
});

describe("a remote's failure text", () => {
  it("is cut at MAX_REMOTE_MESSAGE_CHARS in the DelegationError message, which says it was cut", async () => {
    expect(MAX_REMOTE_MESSAGE_CHARS).toBe(500);
    const remote = await agent();
    await using client = await A2AClient.connect(remote.url);
    const text = `boom ${"Z".repeat(300_000)}`;
    const err = findError(await rejection(delegate(client, `fail ${text}`)), DelegationError)!;
    expect(err.code).toBe("remote_failed");
    expect(err.message).toBe(`remote agent: ${text.slice(0, 500)}… (cut: ${text.length} characters in all)`);
  });

  it("within the limit, is quoted whole", async () => {
    const remote = await agent();
    await using client = await A2AClient.connect(remote.url);
    const text = "y".repeat(500);
    const err = findError(await rejection(delegate(client, `fail ${text}`)), DelegationError)!;
    expect(err.message).toBe(`remote agent: ${text}`);
  });
});

/** A promise and the function that resolves it. */
function signalled(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * A remote whose stream (task `t-stuck`) never ends and whose `CancelTask` is never answered, and
 * a `fetch` for the client that tracks the cancel request on the client's side: whether it has
 * ended (answered, failed or given up) yet.
 */
async function stuckRemote() {
  const remote = await agent();
  const cancelArrived = signalled();
  const cancelDropped = signalled();
  const client = { cancelEnded: false };
  remote.intercept((req, res, next) => {
    const rpc = rpcOf(req);
    if (rpc.method === "SendStreamingMessage") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(sseEvent(rpc.id, working("t-stuck")));
      return;
    }
    if (rpc.method === "CancelTask") {
      cancelArrived.resolve();
      res.once("close", () => cancelDropped.resolve());
      return;
    }
    next();
  });
  const tracking: typeof fetch = (input, init) => {
    const response = fetch(input, init);
    if (typeof init?.body === "string" && init.body.includes('"CancelTask"'))
      void response.then(
        () => (client.cancelEnded = true),
        () => (client.cancelEnded = true),
      );
    return response;
  };
  return { remote, client, fetch: tracking, cancelArrived: cancelArrived.promise, cancelDropped: cancelDropped.promise };
}

describe("a delegation that ends early settles at once; the remote cancel goes on in the background", () => {
  it("timeoutMs: rejects with timeout while the cancel request is still waiting for the remote; close() ends it", async () => {
    const stuck = await stuckRemote();
    const client = await A2AClient.connect(stuck.remote.url, { fetch: stuck.fetch });
    const err = await rejection(delegate(client, "x", { timeoutMs: 1000 }));
    const cancelEndedAtSettle = stuck.client.cancelEnded;
    expect(findError(err, DelegationError)).toMatchObject({ code: "timeout", metadata: { taskId: "t-stuck" } });
    // Settled without waiting for the remote's answer to the cancel, or giving the request up.
    expect(cancelEndedAtSettle).toBe(false);
    await stuck.cancelArrived;
    await client.close();
    expect(stuck.client.cancelEnded).toBe(true);
    await stuck.cancelDropped;
    expect(stuck.remote.requests.map((r) => r.rpcMethod).filter(Boolean)).toEqual(["SendStreamingMessage", "CancelTask"]);
  }, 20_000);

  it("the caller's abort: rejects with the signal's reason at once, the cancel request still waiting", async () => {
    const stuck = await stuckRemote();
    const client = await A2AClient.connect(stuck.remote.url, { fetch: stuck.fetch });
    const controller = new AbortController();
    const reason = new Error("host stopping");
    // Aborted once the delegation knows its remote task (its first progress event).
    const err = await rejection(delegate(client, "x", { signal: controller.signal, onProgress: () => controller.abort(reason) }));
    const cancelEndedAtSettle = stuck.client.cancelEnded;
    expect(err).toBe(reason);
    expect(cancelEndedAtSettle).toBe(false);
    await stuck.cancelArrived;
    await client.close();
    expect(stuck.client.cancelEnded).toBe(true);
    await stuck.cancelDropped;
  });

  it("a2aDelegation: a tool call whose run is cancelled settles without waiting for the remote cancel", async () => {
    const stuck = await stuckRemote();
    const tool = a2aDelegation({ url: stuck.remote.url, name: "ask", fetch: stuck.fetch });
    const controller = new AbortController();
    // The run is cancelled once the delegation reports progress on its remote task.
    const outcome = await invokeTool(
      tool,
      { task: "x" },
      {
        signal: controller.signal,
        runId: "run-1",
        toolCallId: "call-1",
        notice: (kind) => {
          if (kind === "a2a.delegation.progress") controller.abort(new Error("run cancelled"));
        },
      },
    );
    const cancelEndedAtSettle = stuck.client.cancelEnded;
    expect(outcome).toMatchObject({ kind: "failed" });
    expect(cancelEndedAtSettle).toBe(false);
    // The tool's client is its own: the cancel request ends when the remote (closed after the test) drops it.
    await stuck.cancelArrived;
  });
});
