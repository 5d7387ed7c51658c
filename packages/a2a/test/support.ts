import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { REFERENCE_DESCRIPTOR, ReferenceDriver } from "@adaptor/driver/testing";
import type { Driver } from "@adaptor/driver";
import { Role, type Message, type Part, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, type Client } from "@a2a-js/sdk/client";
import { randomUUID } from "node:crypto";
import { Agent, type AgentOptions } from "adaptor";
import { a2aServer, type A2AServer, type A2AServerOptions, type RunnerFor, type StreamRunner } from "../src/index.js";

/** An HTTP server on 127.0.0.1 whose handler is set after it listens (the card needs the URL). */
export interface Listening {
  readonly url: string;
  readonly http: Server;
  handle(handler: (req: IncomingMessage, res: ServerResponse) => void): void;
  close(): Promise<void>;
}

export async function listen(): Promise<Listening> {
  let current: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const http = createServer((req, res) => {
    if (current) current(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    http,
    handle: (handler) => {
      current = handler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** Our A2A server on a reference-driver Agent, listening on 127.0.0.1. */
export interface Served {
  readonly url: string;
  readonly server: A2AServer;
  readonly agent: Agent | undefined;
  readonly listening: Listening;
  close(): Promise<void>;
}

export async function serve(
  runner?: StreamRunner | RunnerFor,
  options: Partial<A2AServerOptions> = {},
  agentOptions: AgentOptions = {},
): Promise<Served> {
  const listening = await listen();
  const agent = runner ? undefined : new Agent(new ReferenceDriver(), agentOptions);
  const server = a2aServer(runner ?? agent!, {
    url: listening.url,
    card: { name: "Reference agent", description: "Answers from a scripted driver" },
    ...options,
  });
  listening.handle(server.handler);
  return {
    url: listening.url,
    server,
    agent,
    listening,
    async close() {
      await server.close();
      await agent?.close();
      await listening.close();
    },
  };
}

/** A driver whose every run throws an infrastructure error with secrets in its message and stack. */
export function throwingDriver(): Driver {
  return {
    descriptor: REFERENCE_DESCRIPTOR,
    validateConfig() {},
    async run() {
      throw new Error("connect ECONNREFUSED /var/run/secret.sock token=sk-live-12345");
    },
  };
}

/** A driver whose run asks two permissions at once, then reports both outcomes as its answer. */
export function twoApprovalsDriver(): Driver {
  return {
    descriptor: REFERENCE_DESCRIPTOR,
    validateConfig() {},
    async run(_request, sink) {
      const ask = (command: string, id: string) =>
        sink.requestApproval({ kind: "permission", title: `shell: ${command}`, toolName: "shell", toolCallId: id, input: { command } });
      const [make, test] = await Promise.all([ask("make", "call_1"), ask("make test", "call_2")]);
      const text = `make: ${make.outcome}, make test: ${test.outcome}`;
      sink.emit({ type: "text-delta", text });
      return { text, transcript: [], raw: { stdout: "", stderr: "" } };
    },
  };
}

// Messages for the official @a2a-js/sdk client.

export function userMessage(parts: Part[], taskId = ""): Message {
  return {
    messageId: randomUUID(),
    contextId: "",
    taskId,
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
export const text = (value: string): Part => ({
  content: { $case: "text", value },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});
export const data = (value: unknown): Part => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json",
});
export const send = (parts: Part[], taskId = "") => ({
  tenant: "",
  message: userMessage(parts, taskId),
  configuration: undefined,
  metadata: undefined,
});
export const partsText = (parts: readonly Part[] = []): string =>
  parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");

export function asTask(result: Task | Message): Task {
  if (!("status" in result)) throw new Error(`expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

export async function sdkClient(url: string, transport: "JSONRPC" | "HTTP+JSON" = "JSONRPC"): Promise<Client> {
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] }));
  return factory.createFromUrl(url);
}

/** The text of delta `i` of {@link manyDeltasDriver}: its number, so a lost, repeated or reordered delta changes the answer. */
export const numberedDelta = (i: number): string => `${i},`;

/**
 * A driver that emits `count` small deltas ({@link numberedDelta}), letting the event loop turn
 * every 100 (as a CLI's stdout chunks do). With `ownMessages`, each delta is of a message of its
 * own (a fleet then stores each as an event: it joins only deltas of one message).
 */
export function manyDeltasDriver(count: number, ownMessages = false): Driver {
  return {
    descriptor: REFERENCE_DESCRIPTOR,
    validateConfig() {},
    async run(_request, sink, signal) {
      let answer = "";
      for (let i = 0; i < count; i++) {
        signal.throwIfAborted();
        sink.emit({ type: "text-delta", text: numberedDelta(i), ...(ownMessages ? { messageId: `m${i}` } : {}) });
        answer += numberedDelta(i);
        if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
      }
      return { text: answer, transcript: [], raw: { stdout: "", stderr: "" } };
    },
  };
}

/** A driver answering `deltas`; with `gate`, it waits for it after the first `pauseAfter` deltas. */
export function deltasDriver(deltas: readonly string[], gate?: { pauseAfter: number; open: Promise<void> }): Driver {
  return {
    descriptor: REFERENCE_DESCRIPTOR,
    validateConfig() {},
    async run(_request, sink, signal) {
      for (const [i, delta] of deltas.entries()) {
        signal.throwIfAborted();
        if (gate && i === gate.pauseAfter) await gate.open;
        sink.emit({ type: "text-delta", text: delta });
        if (i % 10 === 9) await new Promise((resolve) => setImmediate(resolve));
      }
      return { text: deltas.join(""), transcript: [], raw: { stdout: "", stderr: "" } };
    },
  };
}
