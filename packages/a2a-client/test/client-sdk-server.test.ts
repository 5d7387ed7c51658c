// Our A2A client against agents on the official @a2a-js/sdk server: every row of the A2A client
// error table, the trusted-origin rule (card interfaces and redirects), and stream recovery by
// resubscribing after a disconnect.
import { inspect } from "node:util";
import { TaskState } from "@a2a-js/sdk";
import { DriverError, ErrCode, errorCode, findError, isError } from "@adaptor/errors";
import { invokeTool } from "@adaptor/tool/internal";
import { describe, expect, it } from "vitest";
import {
  A2AClient,
  a2aDelegation,
  delegate,
  DelegationError,
  ErrInvalidAgentCard,
  ErrNotFound,
  ErrProtocol,
  ErrUnauthorized,
  ErrUnsupported,
  ErrUntrustedOrigin,
  ProtocolError,
  StreamRecoveryError,
  DEFAULT_CONNECT_TIMEOUT_MS,
  MAX_AGENT_CARD_BYTES,
  taskStateName,
  type A2AStreamEvent,
} from "../src/index.js";
import { agent, closeAfter, drain, plain, rejection } from "./support.js";

describe("A2AClient against the @a2a-js/sdk server", () => {
  it("connects from the base URL, sends, and gets the completed task with its artifact", async () => {
    const remote = await agent();
    await using client = await A2AClient.connect(remote.url);
    expect(client.card.name).toBe("SDK agent");
    expect(client.agentInterface).toMatchObject({ protocolBinding: "JSONRPC", url: remote.url });
    const task = await client.send("echo hello");
    expect("status" in task && task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect("artifacts" in task && task.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "echo: hello" });
    expect(remote.requests.map((r) => r.rpcMethod ?? r.path)).toEqual(["/.well-known/agent-card.json", "SendMessage"]);
  });

  it("streams a task to its final state, then reads it with getTask", async () => {
    const remote = await agent();
    await using client = await A2AClient.connect(`${remote.url}/.well-known/agent-card.json`);
    const events = await drain(client.stream("echo streamed"));
    expect(events.map((e) => e.kind)).toEqual(["task", "artifact-update", "status-update"]);
    expect(events[1]).toMatchObject({ kind: "artifact-update", text: "echo: streamed" });
    expect(events.at(-1)).toMatchObject({ kind: "status-update", state: TaskState.TASK_STATE_COMPLETED, final: true });
    const task = await client.getTask(events[0]!.taskId!);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("a stream ends on input-required (an interrupted state), with the agent's question", async () => {
    const remote = await agent();
    await using client = await A2AClient.connect(remote.url);
    const events = await drain(client.stream("input"));
    expect(events.at(-1)).toMatchObject({
      kind: "status-update",
      state: TaskState.TASK_STATE_INPUT_REQUIRED,
      text: "which branch?",
      final: true,
    });
  });

  it("a stream answering an input-required task goes on past the task's input-required snapshot to the real terminal state", async () => {
    const remote = await agent();
    await using client = await A2AClient.connect(remote.url);
    const asked = await drain(client.stream("input"));
    const taskId = asked.at(-1)!.taskId!;
    const events = await drain(client.stream("main", { taskId }));
    expect(events.map((e) => [e.kind, "state" in e ? taskStateName(e.state) : undefined, e.final])).toEqual([
      ["task", "input-required", false],
      ["status-update", "working", false],
      ["artifact-update", undefined, false],
      ["status-update", "completed", true],
    ]);
    expect(events[2]).toMatchObject({ kind: "artifact-update", text: "on main" });
    expect((await client.getTask(taskId)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("a resubscription to a waiting task ends on its input-required snapshot", async () => {
    const remote = await agent();
    await using client = await A2AClient.connect(remote.url);
    const asked = await drain(client.stream("input"));
    const events = await drain(client.resubscribe(asked.at(-1)!.taskId!));
    expect(events.map((e) => [e.kind, e.final])).toEqual([["task", true]]);
    expect(events[0]).toMatchObject({ state: TaskState.TASK_STATE_INPUT_REQUIRED });
  });

  it("speaks HTTP+JSON when the card offers only that", async () => {
    const remote = await agent({
      card: (card) => ({ ...card, supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding === "HTTP+JSON") }),
    });
    await using client = await A2AClient.connect(remote.url);
    expect(client.agentInterface.protocolBinding).toBe("HTTP+JSON");
    const task = await client.send("echo rest");
    expect("status" in task && task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});

describe("A2A client error rows", () => {
  it("ErrInvalidAgentCard: a card that is not JSON, has no name, lists no interfaces, or is not there (404)", async () => {
    const cases: [string, number, string][] = [
      ["the card is not JSON", 200, "<html>hello</html>"],
      [
        "the card has no name",
        200,
        JSON.stringify({ description: "x", supportedInterfaces: [{ url: "http://127.0.0.1:1", protocolBinding: "JSONRPC" }] }),
      ],
      ["the card lists no supportedInterfaces", 200, JSON.stringify({ name: "x", supportedInterfaces: [] })],
      [
        "supportedInterfaces[0].url is not an absolute URL",
        200,
        JSON.stringify({ name: "x", supportedInterfaces: [{ url: "/a2a", protocolBinding: "JSONRPC" }] }),
      ],
      ["HTTP 404", 404, "no card here"],
    ];
    for (const [reason, status, body] of cases) {
      const server = await plain((_req, res) => res.writeHead(status, { "content-type": "application/json" }).end(body));
      const err = await rejection(A2AClient.connect(server.url));
      expect(isError(err, ErrInvalidAgentCard), reason).toBe(true);
      const protocol = findError(err, ProtocolError);
      expect(protocol?.op).toBe("agent-card");
      expect(protocol?.reason).toContain(reason);
      expect(protocol?.raw).toBe(body);
      for (const other of [ErrProtocol, ErrUnauthorized, ErrNotFound, ErrUnsupported, ErrUntrustedOrigin])
        expect(isError(err, other)).toBe(false);
    }
  });

  it("ErrInvalidAgentCard, RESOURCE_EXHAUSTED: a card body over MAX_AGENT_CARD_BYTES is refused once the limit is passed, endless or announced", async () => {
    let written = 0;
    const chunk = Buffer.alloc(64 * 1024, "a");
    const endless = await plain((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"name":"');
      const more = (): void => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once("drain", more);
      };
      more();
      res.on("close", () => undefined);
    });
    const err = await rejection(A2AClient.connect(endless.url, { connectTimeoutMs: 20_000 }));
    expect(isError(err, ErrInvalidAgentCard)).toBe(true);
    expect(errorCode(err)).toBe(ErrCode.ResourceExhausted);
    expect(findError(err, ProtocolError)?.reason).toBe(`the card is larger than ${MAX_AGENT_CARD_BYTES} bytes`);
    expect(written).toBeLessThan(16 * MAX_AGENT_CARD_BYTES);
    const announced = await plain((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(MAX_AGENT_CARD_BYTES + 1) });
      res.write("{"); // and nothing more: refused on the header, not after the deadline
    });
    const early = await rejection(A2AClient.connect(announced.url, { connectTimeoutMs: 20_000 }));
    expect(isError(early, ErrInvalidAgentCard)).toBe(true);
    expect(errorCode(early)).toBe(ErrCode.ResourceExhausted);
  });

  it("ErrProtocol: a JSON-RPC endpoint that answers with something that is not JSON-RPC", async () => {
    const remote = await agent();
    remote.intercept((req, res, next) => (req.method === "POST" ? res.status(200).type("application/json").send("{not json") : next()));
    await using client = await A2AClient.connect(remote.url);
    const err = await rejection(client.send("echo x"));
    expect(isError(err, ErrProtocol)).toBe(true);
    expect(findError(err, ProtocolError)).toMatchObject({ op: "message/send" });
    for (const other of [ErrInvalidAgentCard, ErrUnauthorized, ErrNotFound, ErrUnsupported, ErrUntrustedOrigin])
      expect(isError(err, other)).toBe(false);
  });

  it("ErrUnauthorized: HTTP 401 on a call, with the sent credential redacted from raw", async () => {
    const remote = await agent({ token: "Bearer right-token-0001" });
    await using client = await A2AClient.connect(remote.url, { headers: { authorization: "Bearer wrong-token-9999" } });
    const err = await rejection(client.send("echo x"));
    expect(isError(err, ErrUnauthorized)).toBe(true);
    const protocol = findError(err, ProtocolError);
    expect(protocol).toMatchObject({ op: "message/send", reason: "HTTP 401" });
    expect(protocol?.raw).toContain("unauthorized; you sent");
    expect(protocol?.raw).not.toContain("wrong-token-9999");
    expect(String(err)).not.toContain("wrong-token-9999");
    expect(isError(err, ErrProtocol)).toBe(false);
  });

  it("a remote error that echoes the request's credentials: the ProtocolError's message, reason, raw and cause chain carry none of them", async () => {
    const remote = await agent();
    remote.intercept((req, res, next) => {
      const body = (req.body ?? {}) as { id?: unknown; method?: unknown };
      if (body.method !== "SendMessage") return next();
      res.json({
        jsonrpc: "2.0",
        id: body.id,
        error: { code: -32001, message: `no task for ${String(req.headers["authorization"])} (key ${String(req.headers["x-api-key"])})` },
      });
    });
    await using client = await A2AClient.connect(remote.url, {
      headers: { authorization: "Bearer tok-echoed-4242", "x-api-key": "key-echoed-7777" },
    });
    const err = await rejection(client.send("echo x"));
    expect(isError(err, ErrNotFound)).toBe(true);
    const protocol = findError(err, ProtocolError)!;
    expect(protocol.message).toBe("a2a message/send: task not found (no task for [redacted] (key [redacted]))");
    const chain: string[] = [];
    for (let node: unknown = err; node instanceof Error; node = node.cause) chain.push(node.message, String(node.stack));
    chain.push(protocol.reason, protocol.raw ?? "");
    for (const text of chain) {
      expect(text).not.toContain("tok-echoed-4242");
      expect(text).not.toContain("key-echoed-7777");
    }
  });

  it("a JSON-RPC error whose data echoes the credential (send and stream): nothing util.inspect prints of the error carries it", async () => {
    const key = "Zq9s/Wk3+Lm7=Pp2xY";
    const forms = [key, encodeURIComponent(key), Buffer.from(key).toString("base64"), key.toUpperCase()];
    const remote = await agent();
    remote.intercept((req, res, next) => {
      const body = (req.body ?? {}) as { id?: unknown; method?: unknown };
      if (body.method !== "SendMessage" && body.method !== "SendStreamingMessage") return next();
      const sent = String(req.headers["x-api-key"]);
      const error = {
        code: -32603,
        message: "boom",
        data: [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "X",
            domain: "d",
            metadata: { echo: `token=${sent}`, encoded: `${encodeURIComponent(sent)} ${Buffer.from(sent).toString("base64")}` },
          },
          { nested: { deeper: [`key ${sent.toUpperCase()}`] } },
        ],
      };
      if (body.method === "SendMessage") return void res.json({ jsonrpc: "2.0", id: body.id, error });
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: body.id, error })}\n\n`);
    });
    await using client = await A2AClient.connect(remote.url, { headers: { "x-api-key": key } });
    for (const err of [await rejection(client.send("echo x")), await rejection(drain(client.stream("echo x")))]) {
      expect(findError(err, ProtocolError)?.message).toMatch(/^a2a message\/(send|stream): internal error \(boom\)$/);
      const printed = inspect(err, { depth: Infinity, showHidden: true });
      expect(printed).toContain("token=[redacted]");
      for (const form of forms) expect(printed).not.toContain(form);
    }
  });

  it("a remote error body that echoes the credential URL-encoded, base64-encoded and in upper case: raw and message carry none of those forms", async () => {
    const key = "k3y:echoed/7777";
    const forms = [encodeURIComponent(key), Buffer.from(key).toString("base64"), key.toUpperCase()];
    const remote = await agent();
    remote.intercept((req, res, next) => {
      const body = (req.body ?? {}) as { id?: unknown; method?: unknown };
      if (body.method !== "SendMessage") return next();
      const sent = String(req.headers["x-api-key"]);
      res.json({
        jsonrpc: "2.0",
        id: body.id,
        error: {
          code: -32001,
          message: `no task for ${encodeURIComponent(sent)} / ${Buffer.from(sent).toString("base64")} / ${sent.toUpperCase()}`,
        },
      });
    });
    await using client = await A2AClient.connect(remote.url, { headers: { "x-api-key": key } });
    const err = await rejection(client.send("echo x"));
    const protocol = findError(err, ProtocolError)!;
    expect(protocol.message).toBe("a2a message/send: task not found (no task for [redacted] / [redacted] / [redacted])");
    for (const text of [protocol.message, protocol.reason, protocol.raw ?? "", String(err)])
      for (const form of forms) expect(text).not.toContain(form);
  });

  it("an HTTP 500 body that echoes the bearer token JSON-escaped (`\\/` as PHP writes it, `+` as \\u002b): raw, message and what util.inspect prints carry none of it", async () => {
    const token = "Zq9s/Wk3+Lm7=Pp2xY";
    const escaped = [
      token.replace(/\//g, "\\/"),
      token.replace(/\+/g, "\\u002b"),
      token.replace(/\+/g, "\\u002B").replace(/\//g, "\\u002f"),
    ];
    for (const form of escaped) {
      const remote = await agent();
      remote.intercept((req, res, next) => {
        const body = (req.body ?? {}) as { method?: unknown };
        if (body.method !== "SendMessage") return next();
        res.writeHead(500, { "content-type": "application/json" }).end(`{"error":"invalid token ${form}"}`);
      });
      await using client = await A2AClient.connect(remote.url, { headers: { authorization: `Bearer ${token}` } });
      const err = await rejection(client.send("echo x"));
      const protocol = findError(err, ProtocolError)!;
      expect(protocol.raw).toContain('{"error":"invalid token [redacted]"}');
      const printed = inspect(err, { depth: Infinity, showHidden: true });
      expect(printed).toContain("invalid token [redacted]");
      for (const text of [printed, protocol.message, String(err)]) {
        expect(text).not.toContain(form);
        expect(text).not.toContain("Zq9s");
      }
    }
  });

  it("a failed remote task whose status echoes the credential: the DelegationError message (what the model reads) has it redacted", async () => {
    const remote = await agent({ token: "Bearer tok-del-5555" });
    await using client = await A2AClient.connect(remote.url, { headers: { authorization: "Bearer tok-del-5555" } });
    const err = await rejection(delegate(client, "fail you sent tok-del-5555"));
    expect(findError(err, DelegationError)).toMatchObject({ code: "remote_failed", message: "remote agent: you sent [redacted]" });
  });

  it("ErrUnauthorized: HTTP 401 on a protected card; the right credential passes", async () => {
    const remote = await agent({ token: "Bearer right-token-0001", protectCard: true });
    const err = await rejection(A2AClient.connect(remote.url));
    expect(isError(err, ErrUnauthorized)).toBe(true);
    expect(findError(err, ProtocolError)?.op).toBe("agent-card");
    await using client = await A2AClient.connect(remote.url, { headers: { authorization: "Bearer right-token-0001" } });
    const task = await client.send("echo ok");
    expect("status" in task && task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(remote.requests.filter((r) => r.rpcMethod === "SendMessage").map((r) => r.authorization)).toEqual(["Bearer right-token-0001"]);
  });

  it("ErrNotFound: getTask, cancelTask and resubscribe of a task the agent does not know", async () => {
    const remote = await agent();
    await using client = await A2AClient.connect(remote.url);
    for (const [op, call] of [
      ["tasks/get", () => client.getTask("no-such-task")],
      ["tasks/cancel", () => client.cancelTask("no-such-task")],
      ["tasks/resubscribe", () => drain(client.resubscribe("no-such-task"))],
    ] as const) {
      const err = await rejection(call());
      expect(isError(err, ErrNotFound), op).toBe(true);
      expect(findError(err, ProtocolError)).toBe(err);
      expect(findError(err, ProtocolError)).toMatchObject({ op, reason: "task not found" });
      expect(isError(err, ErrProtocol)).toBe(false);
    }
  });

  it("ErrUnsupported: a card with no JSON-RPC or HTTP+JSON interface; canceling a finished task", async () => {
    const grpcOnly = await agent({
      card: (card) => ({
        ...card,
        supportedInterfaces: [{ url: "127.0.0.1:50051", protocolBinding: "GRPC", tenant: "", protocolVersion: "1.0" }],
      }),
    });
    const err = await rejection(A2AClient.connect(grpcOnly.url));
    expect(isError(err, ErrUnsupported)).toBe(true);
    expect(isError(err, ErrInvalidAgentCard)).toBe(false);

    const remote = await agent();
    await using client = await A2AClient.connect(remote.url);
    const task = await client.send("echo done");
    const cancel = await rejection(client.cancelTask("id" in task ? task.id : ""));
    expect(isError(cancel, ErrUnsupported)).toBe(true);
    expect(findError(cancel, ProtocolError)).toMatchObject({ op: "tasks/cancel", reason: "task not cancelable" });
  });

  it("a refused connection is a ProtocolError whose cause is a SERVICE_UNAVAILABLE DriverError, matching no A2A category", async () => {
    const remote = await agent();
    await using client = await A2AClient.connect(remote.url);
    await remote.close();
    const err = await rejection(client.send("echo x"));
    expect(findError(err, ProtocolError)).toMatchObject({ op: "message/send", reason: "connection failed" });
    expect(errorCode(err)).toBe(ErrCode.ServiceUnavailable);
    expect(findError(err, DriverError)).toBeDefined();
    for (const category of [ErrProtocol, ErrInvalidAgentCard, ErrUnauthorized, ErrNotFound, ErrUnsupported, ErrUntrustedOrigin])
      expect(isError(err, category)).toBe(false);
  });
});

describe("credentials go only to trusted origins", () => {
  const credentials = { headers: { authorization: "Bearer secret-cred-4242" } };

  it("a card whose interface is on another origin fails with ErrUntrustedOrigin before any request reaches that origin", async () => {
    const other = await agent();
    const remote = await agent({
      card: (card) => ({
        ...card,
        supportedInterfaces: [{ url: other.url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
      }),
    });
    const err = await rejection(A2AClient.connect(remote.url, credentials));
    expect(isError(err, ErrUntrustedOrigin)).toBe(true);
    expect(findError(err, ProtocolError)).toMatchObject({ op: "agent-card" });
    expect(other.requests).toEqual([]);
  });

  it("the same card is accepted when its origin is listed in trustedOrigins, and the credential reaches it", async () => {
    const other = await agent();
    const remote = await agent({
      card: (card) => ({
        ...card,
        supportedInterfaces: [{ url: other.url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
      }),
    });
    await using client = await A2AClient.connect(remote.url, { ...credentials, trustedOrigins: [other.url] });
    await client.send("echo across");
    expect(other.requests.map((r) => [r.rpcMethod, r.authorization])).toEqual([["SendMessage", "Bearer secret-cred-4242"]]);
  });

  it("without credentials there is nothing to leak: a cross-origin interface is used", async () => {
    const other = await agent();
    const remote = await agent({
      card: (card) => ({
        ...card,
        supportedInterfaces: [{ url: other.url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
      }),
    });
    await using client = await A2AClient.connect(remote.url);
    await client.send("echo anonymous");
    expect(other.requests.map((r) => [r.rpcMethod, r.authorization])).toEqual([["SendMessage", undefined]]);
  });

  it("a card URL that redirects to another origin fails with ErrUntrustedOrigin; the other origin sees no request", async () => {
    const target = await agent();
    const redirector = await plain((_req, res) => res.writeHead(302, { location: `${target.url}/.well-known/agent-card.json` }).end());
    const err = await rejection(A2AClient.connect(redirector.url, credentials));
    expect(isError(err, ErrUntrustedOrigin)).toBe(true);
    expect(findError(err, ProtocolError)?.op).toBe("agent-card");
    expect(redirector.requests.map((r) => r.authorization)).toEqual(["Bearer secret-cred-4242"]);
    expect(target.requests).toEqual([]);
  });

  it("a JSON-RPC call redirected (307) to another origin fails with ErrUntrustedOrigin; the other origin sees no request", async () => {
    const target = await agent();
    const remote = await agent();
    remote.intercept((req, res, next) => (req.method === "POST" ? res.redirect(307, target.url) : next()));
    await using client = await A2AClient.connect(remote.url, credentials);
    const err = await rejection(client.send("echo x"));
    expect(isError(err, ErrUntrustedOrigin)).toBe(true);
    expect(findError(err, ProtocolError)?.op).toBe("message/send");
    expect(target.requests).toEqual([]);
  });

  it("a redirect within trusted origins is followed (307 keeps the method and body) and carries the credential", async () => {
    const target = await agent();
    const remote = await agent();
    remote.intercept((req, res, next) => (req.method === "POST" ? res.redirect(307, target.url) : next()));
    await using client = await A2AClient.connect(remote.url, { ...credentials, trustedOrigins: [target.url] });
    const task = await client.send("echo followed");
    expect("status" in task && task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(target.requests.map((r) => [r.method, r.rpcMethod, r.authorization])).toEqual([
      ["POST", "SendMessage", "Bearer secret-cred-4242"],
    ]);
  });
});

describe("stream recovery", () => {
  it("a stream cut after the first events resubscribes to the task and delivers the rest", async () => {
    const remote = await agent();
    let cut = false;
    remote.intercept((req, res, next) => {
      const method = (req.body as { method?: string } | undefined)?.method;
      if (method === "SendStreamingMessage" && !cut) {
        cut = true;
        const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
        res.write = ((chunk: unknown, ...rest: unknown[]) => {
          const ok = write(chunk, ...rest);
          if (String(chunk).includes("halfway")) setImmediate(() => res.socket?.destroy());
          return ok;
        }) as typeof res.write;
      }
      if (method === "SubscribeToTask") {
        // Let the task go on once the resubscription is attached (its first write is the snapshot).
        const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
        res.write = ((chunk: unknown, ...rest: unknown[]) => {
          const ok = write(chunk, ...rest);
          remote.release();
          return ok;
        }) as typeof res.write;
      }
      next();
    });
    await using client = await A2AClient.connect(remote.url, { recoveryDelayMs: 10 });
    const events = await drain(client.stream("gated"));
    expect(events.map((e) => e.kind)).toEqual([
      "task",
      "artifact-update",
      "status-update",
      "recovered",
      "task",
      "artifact-update",
      "status-update",
    ]);
    const recovered = events[3];
    expect(recovered).toMatchObject({ kind: "recovered", attempt: 1, taskId: events[0]!.taskId });
    expect(events.filter((e) => e.kind === "artifact-update").map((e) => (e.kind === "artifact-update" ? e.text : ""))).toEqual([
      "part one, ",
      "part two",
    ]);
    expect(events.at(-1)).toMatchObject({ state: TaskState.TASK_STATE_COMPLETED, final: true });
    expect(remote.requests.map((r) => r.rpcMethod).filter(Boolean)).toEqual(["SendStreamingMessage", "SubscribeToTask"]);
  });

  it("recoveryAttempts counts consecutive failures: a stream that makes progress between two cuts recovers from both", async () => {
    const remote = await agent();
    let subscriptions = 0;
    remote.intercept((req, res, next) => {
      const method = (req.body as { method?: string } | undefined)?.method;
      const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
      if (method === "SendStreamingMessage") {
        res.write = ((chunk: unknown, ...rest: unknown[]) => {
          const ok = write(chunk, ...rest);
          if (String(chunk).includes("halfway")) setImmediate(() => res.socket?.destroy());
          return ok;
        }) as typeof res.write;
      }
      if (method === "SubscribeToTask" && ++subscriptions === 1) {
        let cut = false;
        res.write = ((chunk: unknown, ...rest: unknown[]) => {
          if (cut) return true; // what follows "part two" (the completed status) never reaches the client
          const ok = write(chunk, ...rest);
          if (String(chunk).includes("part two")) {
            cut = true;
            setImmediate(() => res.socket?.destroy());
          } else remote.release();
          return ok;
        }) as typeof res.write;
      }
      next();
    });
    await using client = await A2AClient.connect(remote.url, { recoveryDelayMs: 10, recoveryAttempts: 1 });
    const events = await drain(client.stream("gated"));
    expect(events.filter((e) => e.kind === "recovered").map((e) => (e.kind === "recovered" ? e.attempt : 0))).toEqual([1, 1]);
    expect(events.at(-1)).toMatchObject({ state: TaskState.TASK_STATE_COMPLETED, final: true });
    expect(subscriptions).toBe(2);
  });

  it("a task that finished while the stream was down is read once with getTask", async () => {
    const remote = await agent();
    remote.intercept((req, res, next) => {
      const method = (req.body as { method?: string } | undefined)?.method;
      if (method === "SendStreamingMessage") {
        const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
        res.write = ((chunk: unknown, ...rest: unknown[]) => {
          const ok = write(chunk, ...rest);
          if (String(chunk).includes("halfway")) {
            res.socket?.once("close", () => remote.release());
            setImmediate(() => res.socket?.destroy());
          }
          return ok;
        }) as typeof res.write;
      }
      if (method === "SubscribeToTask") {
        // Answer only once the task is terminal, so the resubscription meets a finished task.
        const poll = (): void =>
          void client.getTask(taskId).then((t) => (t.status?.state === TaskState.TASK_STATE_COMPLETED ? next() : setTimeout(poll, 20)));
        return poll();
      }
      next();
    });
    let taskId = "";
    const client = await A2AClient.connect(remote.url, { recoveryDelayMs: 10 });
    closeAfter(() => client.close());
    const events: A2AStreamEvent[] = [];
    for await (const event of client.stream("gated")) {
      taskId ||= event.taskId ?? "";
      events.push(event);
    }
    expect(events.map((e) => e.kind)).toEqual(["task", "artifact-update", "status-update", "recovered", "task"]);
    expect(events.at(-1)).toMatchObject({ kind: "task", state: TaskState.TASK_STATE_COMPLETED, final: true });
  });

  it("when every resubscription fails: StreamRecoveryError with the taskId, its cause the last failure", async () => {
    const remote = await agent();
    remote.intercept((req, res, next) => {
      const method = (req.body as { method?: string } | undefined)?.method;
      if (method === "SendStreamingMessage") {
        const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
        res.write = ((chunk: unknown, ...rest: unknown[]) => {
          const ok = write(chunk, ...rest);
          if (String(chunk).includes("halfway")) setImmediate(() => res.socket?.destroy());
          return ok;
        }) as typeof res.write;
      }
      if (method === "SubscribeToTask") return void res.socket?.destroy();
      next();
    });
    await using client = await A2AClient.connect(remote.url, { recoveryDelayMs: 10, recoveryAttempts: 2 });
    const seen: A2AStreamEvent[] = [];
    let thrown: unknown;
    try {
      for await (const event of client.stream("gated")) seen.push(event);
    } catch (error) {
      thrown = error;
    }
    const recovery = findError(thrown, StreamRecoveryError);
    expect(recovery).toBe(thrown);
    expect(recovery?.taskId).toBe(seen[0]?.taskId);
    expect(seen.filter((e) => e.kind === "recovered").map((e) => (e.kind === "recovered" ? e.attempt : 0))).toEqual([1, 2]);
    expect(findError(recovery?.cause, ProtocolError)).toMatchObject({ op: "tasks/resubscribe", reason: "connection failed" });
    expect(errorCode(thrown)).toBe(ErrCode.ServiceUnavailable);
    expect(remote.requests.filter((r) => r.rpcMethod === "SubscribeToTask")).toHaveLength(2);
    for (const category of [ErrProtocol, ErrInvalidAgentCard, ErrUnauthorized, ErrNotFound, ErrUnsupported, ErrUntrustedOrigin])
      expect(isError(thrown, category)).toBe(false);
    remote.release();
  });

  it("an error before the task is known is not recovered: the ProtocolError itself", async () => {
    const remote = await agent();
    remote.intercept((req, res, next) =>
      (req.body as { method?: string } | undefined)?.method === "SendStreamingMessage" ? void res.socket?.destroy() : next(),
    );
    await using client = await A2AClient.connect(remote.url);
    const err = await rejection(drain(client.stream("echo x")));
    expect(findError(err, ProtocolError)).toBe(err);
    expect(findError(err, StreamRecoveryError)).toBeUndefined();
  });
});

describe("A2AClient.connect deadline", () => {
  it("a card request that is never answered fails after connectTimeoutMs with a ProtocolError whose cause is a TIMEOUT DriverError, its own cause an Error naming the bound", async () => {
    expect(DEFAULT_CONNECT_TIMEOUT_MS).toBe(30_000);
    const silent = await plain(() => undefined);
    const err = await rejection(A2AClient.connect(silent.url, { connectTimeoutMs: 1000 }));
    expect(findError(err, ProtocolError)).toMatchObject({ op: "agent-card" });
    expect(errorCode(err)).toBe(ErrCode.Timeout);
    expect(findError(err, DriverError)).toMatchObject({ op: "agent-card", device: "a2a" });
    const chain: unknown[] = [];
    for (let node: unknown = err; node !== undefined; node = (node as { cause?: unknown }).cause) chain.push(node);
    expect(chain.every((node) => node instanceof Error)).toBe(true);
    expect(chain.map((node) => (node as Error).message)).toEqual([
      `a2a agent-card: no agent card from ${silent.url}/.well-known/agent-card.json within 1000 ms ([TIMEOUT] agent-card: a2a (no answer within 1000 ms))`,
      "[TIMEOUT] agent-card: a2a (no answer within 1000 ms)",
      "no answer within 1000 ms",
    ]);
    for (const category of [ErrInvalidAgentCard, ErrProtocol, ErrUnauthorized, ErrNotFound, ErrUnsupported, ErrUntrustedOrigin])
      expect(isError(err, category)).toBe(false);
    expect(silent.requests.map((r) => r.path)).toEqual(["/.well-known/agent-card.json"]);
  }, 20_000);

  it("the caller's signal still wins over the deadline: its reason is thrown as is", async () => {
    const silent = await plain(() => undefined);
    const controller = new AbortController();
    const pending = A2AClient.connect(silent.url, { signal: controller.signal });
    controller.abort(new Error("host stopping"));
    await expect(pending).rejects.toThrow("host stopping");
  });
});

describe("a2aDelegation deadline", () => {
  it("covers reading the agent card: a remote that never answers the card fails the call with timeout at timeoutMs", async () => {
    const silent = await plain(() => undefined);
    const tool = a2aDelegation({ url: silent.url, timeoutMs: 1000 });
    const notices: { kind: string; data: Readonly<Record<string, unknown>> | undefined }[] = [];
    const outcome = await invokeTool(
      tool,
      { task: "review the patch" },
      {
        signal: new AbortController().signal,
        runId: "run-1",
        toolCallId: "call-1",
        notice: (kind, _message, data) => notices.push({ kind, data }),
      },
    );
    expect(outcome).toMatchObject({ kind: "rejected", modelText: "timeout: the remote agent did not finish within 1000 ms (retryable)" });
    expect(notices).toEqual([
      {
        kind: "a2a.delegation.failed",
        data: expect.objectContaining({ code: "timeout", retryable: true, metadata: { op: "agent-card" } }) as unknown,
      },
    ]);
  }, 20_000);
});
