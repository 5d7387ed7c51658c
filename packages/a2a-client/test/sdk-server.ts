// A scripted A2A agent on the official @a2a-js/sdk server (Express), on 127.0.0.1, for client tests.
// The first text part directs it: `echo <text>`, `fail <message>`, `input` (input-required; a
// message on the task then completes it with the artifact `on <text>`), `gated` (one chunk, then
// waits for `release()`, then a second chunk and completed), anything else → `echo`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { Role, TaskState, type AgentCard, type Message, type Part } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import express, { type RequestHandler } from "express";

export const text = (value: string): Part => ({
  content: { $case: "text", value },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});

function agentMessage(taskId: string, contextId: string, value: string, metadata?: Record<string, unknown>): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [text(value)],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** One logged HTTP request. */
export interface Logged {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  readonly rpcMethod: string | undefined;
}

export interface SdkAgent {
  readonly url: string;
  readonly requests: Logged[];
  /** Lets every `gated` task go on. */
  release(): void;
  /** Runs before the A2A handlers for each request; may answer it itself. */
  intercept(middleware: RequestHandler | undefined): void;
  close(): Promise<void>;
}

/** A plain HTTP server on 127.0.0.1 (another origin than the agent's), with a request log. */
export interface PlainServer {
  readonly url: string;
  readonly requests: Logged[];
  close(): Promise<void>;
}

function log(req: IncomingMessage, rpcMethod?: string): Logged {
  const auth = req.headers["authorization"];
  return { method: req.method ?? "", path: req.url ?? "", authorization: typeof auth === "string" ? auth : undefined, rpcMethod };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

export async function startPlainServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<PlainServer> {
  const requests: Logged[] = [];
  const server = createServer((req, res) => {
    requests.push(log(req));
    handler(req, res);
  });
  const url = await listen(server);
  return { url, requests, close: closer(server) };
}

export interface SdkAgentOptions {
  /** Required `authorization` header value for the A2A endpoints (and the card, when `protectCard`). */
  readonly token?: string;
  readonly protectCard?: boolean;
  /** Rewrites the card before it is served (e.g. interfaces on another origin). */
  readonly card?: (card: AgentCard, url: string) => AgentCard;
  readonly streaming?: boolean;
}

export async function startSdkAgent(options: SdkAgentOptions = {}): Promise<SdkAgent> {
  const requests: Logged[] = [];
  let gate: { promise: Promise<void>; resolve: () => void } | undefined;
  const newGate = () => {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  };
  gate = newGate();
  let middleware: RequestHandler | undefined;

  const executor: AgentExecutor = {
    async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
      const { taskId, contextId } = context;
      const prompt = context.userMessage.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
      if (context.task) {
        // A message on a waiting task (the answer to `input`): the task as stored first (still
        // input-required), then the rest of the run.
        bus.publish(AgentEvent.task(context.task));
        const update = (state: TaskState) =>
          bus.publish(
            AgentEvent.statusUpdate({
              taskId,
              contextId,
              status: { state, message: undefined, timestamp: new Date().toISOString() },
              metadata: undefined,
            }),
          );
        update(TaskState.TASK_STATE_WORKING);
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId: "answer",
              name: "answer",
              description: "",
              parts: [text(`on ${prompt}`)],
              metadata: undefined,
              extensions: [],
            },
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
        update(TaskState.TASK_STATE_COMPLETED);
        return;
      }
      const task = {
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [context.userMessage],
        metadata: undefined,
      };
      bus.publish(AgentEvent.task(task));
      const status = (state: TaskState, message?: Message) =>
        bus.publish(
          AgentEvent.statusUpdate({
            taskId,
            contextId,
            status: { state, message, timestamp: new Date().toISOString() },
            metadata: undefined,
          }),
        );
      const artifact = (value: string, append: boolean) =>
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: { artifactId: "answer", name: "answer", description: "", parts: [text(value)], metadata: undefined, extensions: [] },
            append,
            lastChunk: false,
            metadata: undefined,
          }),
        );
      if (prompt.startsWith("fail")) {
        status(
          TaskState.TASK_STATE_FAILED,
          agentMessage(taskId, contextId, prompt.slice(5) || "failed", { "adaptor.failure": { code: "agent_error", retryable: false } }),
        );
        return;
      }
      if (prompt === "input") {
        status(TaskState.TASK_STATE_INPUT_REQUIRED, agentMessage(taskId, contextId, "which branch?"));
        return;
      }
      if (prompt === "gated") {
        artifact("part one, ", false);
        status(TaskState.TASK_STATE_WORKING, agentMessage(taskId, contextId, "halfway"));
        await gate!.promise;
        artifact("part two", true);
        status(TaskState.TASK_STATE_COMPLETED);
        return;
      }
      artifact(`echo: ${prompt.replace(/^echo /, "")}`, false);
      status(TaskState.TASK_STATE_COMPLETED);
    },
    async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: "",
          status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
    },
  };

  const app = express();
  const holder: { url: string } = { url: "" };
  const cardFor = (): AgentCard => {
    const base: AgentCard = {
      name: "SDK agent",
      description: "A scripted agent on the @a2a-js/sdk server",
      supportedInterfaces: [
        { url: holder.url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
        { url: `${holder.url}/rest`, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" },
      ],
      provider: undefined,
      version: "1.0.0",
      capabilities: { streaming: options.streaming ?? true, pushNotifications: false, extensions: [], extendedAgentCard: false },
      securitySchemes: {},
      securityRequirements: [],
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [],
      signatures: [],
    };
    return options.card ? options.card(base, holder.url) : base;
  };
  let handler: DefaultRequestHandler | undefined;
  const requestHandler = () => (handler ??= new DefaultRequestHandler(cardFor(), new InMemoryTaskStore(), executor));
  app.use(express.json({ limit: "1mb" }), (req, _res, next) => {
    const body = req.body as { method?: unknown } | undefined;
    requests.push(log(req, typeof body?.method === "string" ? body.method : undefined));
    next();
  });
  app.use((req, res, next) => (middleware ? middleware(req, res, next) : next()));
  const authorized: RequestHandler = (req, res, next) => {
    if (!options.token || req.headers["authorization"] === options.token) return next();
    res.status(401).json({ error: `unauthorized; you sent ${req.headers["authorization"] ?? "nothing"}` });
  };
  app.use("/.well-known/agent-card.json", options.protectCard ? authorized : (_req, _res, next) => next(), (req, res, next) =>
    agentCardHandler({ agentCardProvider: requestHandler() })(req, res, next),
  );
  app.use(authorized);
  app.use("/rest", (req, res, next) =>
    restHandler({ requestHandler: requestHandler(), userBuilder: UserBuilder.noAuthentication })(req, res, next),
  );
  app.use("/", (req, res, next) =>
    jsonRpcHandler({ requestHandler: requestHandler(), userBuilder: UserBuilder.noAuthentication })(req, res, next),
  );
  const server = createServer(app);
  holder.url = await listen(server);
  return {
    url: holder.url,
    requests,
    release: () => {
      gate?.resolve();
      gate = newGate();
    },
    intercept: (m) => {
      middleware = m;
    },
    close: async () => {
      gate?.resolve();
      await closer(server)();
    },
  };
}
