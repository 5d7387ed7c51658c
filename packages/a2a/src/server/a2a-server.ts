import type { IncomingMessage, ServerResponse } from "node:http";
import { AGENT_CARD_PATH, TaskState, type AgentCard, type AgentSkill, type Message, type Task } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  type AgentExecutor,
  type ExecutionEventBus,
  type DefaultRequestHandlerOptions,
  type RequestContext,
  type ServerCallContext,
  type TaskStore,
} from "@a2a-js/sdk/server";
import { A2AError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { taskStateName } from "@adaptor/a2a-client";
import { InvalidOptionError } from "@adaptor/errors";
import { closeIfBodyUnread, hostAllowed, hostRule, type ApprovalDecision, type RememberRule, type RunOptions, type Stream } from "adaptor";
import express from "express";
import { bodyDeadline, bodyTimeoutOf } from "./body-deadline.js";
import { paced, StreamPacing, writeTimeoutOf } from "./stream-pacing.js";
import { arrivingBodyLimit, declaredBodyLimit, MAX_REQUEST_BODY_BYTES } from "./body-limit.js";
import { agentMessage, failedToStart, failedWithError, messageData, messageText, rejected, textPart } from "./parts.js";
import { MemoryTaskStore } from "./memory-task-store.js";
import { recordingStore } from "./recording-store.js";
import { consoleWarnLog, outsideServerLog, withServerLog, type A2AServerLog } from "./server-log.js";
import { answerFits, approvalMessage, decisionOf, TaskRun, type ApprovalAnswer } from "./task-run.js";

/** What the server runs: an `Agent` or a `Thread` (anything with `stream`). */
export interface StreamRunner {
  /** Starts a run and returns its stream at once, as `Agent.stream` and `Thread.stream` do. */
  stream(prompt: string, options?: RunOptions): Stream;
  /**
   * Answers a suspended turn's stored approval and resumes the turn, as `Thread.streamAnswer`
   * does: needed to serve `runOptions.suspend` (a `Thread` has it, an `Agent` does not).
   */
  streamAnswer?(approvalId: string, decision: ApprovalDecision, options?: RunOptions): Stream;
  /**
   * The stored approvals of the runner's thread, as `Thread.pendingApprovals` lists them: lets
   * the server refuse an answer to a suspended task whose approval another server already answered.
   */
  pendingApprovals?(): Promise<readonly { readonly id: string; readonly status: string }[]>;
}

/**
 * Picks the runner of each new task from its A2A conversation, e.g.
 * `({ contextId }) => agent.thread("a2a:" + contextId)` so that the messages of one `contextId`
 * continue one thread. Called once per new task, before its run starts, and again for each
 * message that resumes a suspended turn of the task.
 */
export type RunnerFor = (task: { readonly contextId: string; readonly taskId: string }) => StreamRunner;

/** The card fields a host chooses; the rest (interfaces, capabilities, modes) the server fills in. */
export interface A2AServerCard {
  /** The agent's name, e.g. `"Code reviewer"`. */
  readonly name: string;
  /** What it does, for clients and their models. */
  readonly description: string;
  /** The agent's version. Default `"1.0.0"`. */
  readonly version?: string;
  /** Skills to advertise. Default: one skill named after the agent. */
  readonly skills?: readonly Partial<AgentSkill>[];
  /** The organisation behind the agent. */
  readonly provider?: { readonly organization: string; readonly url: string };
}

/** Options of {@link a2aServer}. */
export interface A2AServerOptions {
  /**
   * The public base URL where {@link A2AServer.handler} is mounted, e.g.
   * `"https://agents.example.com/reviewer"`: the JSON-RPC interface is this URL, the HTTP+JSON
   * interface `<url>/rest`, the card `<url>/.well-known/agent-card.json`.
   */
  readonly url: string;
  /** The card fields the host chooses. */
  readonly card: A2AServerCard;
  /**
   * Options for every run (policy, timeouts, model, `suspend`). No `onApproval` (approvals go to
   * the A2A client) and no `signal` (`CancelTask` and {@link A2AServer.close} cancel runs).
   *
   * Without `suspend`, a task waits for its approvals in `input-required` with its run open. With
   * `suspend` (runners must be `Thread`s on a store with pending approvals), a turn that asks a
   * human suspends: its approval goes to the thread store, the run ends, and the task waits in
   * `input-required` (the approval data part has `suspended: true`); the task's next message
   * answers it and resumes the turn with `Thread.streamAnswer`, on this server or, with a durable
   * {@link taskStore} and the same thread store, on another one or after a restart.
   */
  readonly runOptions?: Omit<RunOptions, "onApproval" | "signal">;
  /**
   * Where the A2A tasks are kept (the `@a2a-js/sdk` `TaskStore` interface, e.g.
   * `PostgresTaskStore` from `@adaptor/a2a/postgres`). Default: a new in-memory store with the
   * SDK's `InMemoryTaskStore` semantics that does not copy the whole task per streamed chunk (a
   * chunk costs its own bytes); a restart forgets its tasks. A suspended task survives a restart
   * only in a durable one.
   */
  readonly taskStore?: TaskStore;
  /**
   * Accepts or refuses each JSON-RPC and REST request (the card stays public); a refusal is HTTP
   * 401 before the request is read. Default: every request is accepted.
   */
  readonly authorize?: (request: IncomingMessage) => boolean | Promise<boolean>;
  /**
   * Hosts this server answers besides the host of `url` and the loopback names (`127.0.0.1`,
   * `localhost`, `[::1]`) on the port a request arrived on: `"agents.example.com"`,
   * `"agents.example.com:8443"` or `"https://agents.example.com"` (no port: any port). `"*"` turns
   * the check off (a proxy in front checks `Host`). A request with any other `Host` header, or none,
   * gets HTTP 403 `{ error: "forbidden host" }` before anything runs: a web page that made its own
   * name resolve to this machine (DNS rebinding) cannot drive the agent. Default `[]`.
   * @throws InvalidOptionError (at construction) for an entry that is not a host.
   */
  readonly allowedHosts?: readonly string[] | "*";
  /**
   * Where the server's diagnostics go, one line per refused or failed request (no stack trace,
   * credentials redacted): the `@a2a-js/sdk` server's own `console` output is routed here while it
   * handles this server's requests. Default: each line to `console.warn`, prefixed
   * `a2a server: `. `() => {}` silences it.
   */
  readonly log?: A2AServerLog;
  /**
   * Longest time a request body may take to arrive, in ms: a slower one (a client trickling it
   * byte by byte to hold a connection open) gets HTTP 408 `{ error: "request timeout" }` and the
   * connection is closed. Default 30,000, as the bridge's `bodyTimeoutMs`.
   * @throws InvalidOptionError (at construction) for a value that is not a number of ms in (0, 2^31-1].
   */
  readonly bodyTimeoutMs?: number;
  /**
   * Longest time, in ms, a client's event stream (`SendStreamingMessage`, `SubscribeToTask`) may
   * wait for its socket to take more: a client that stops reading is dropped then (the connection
   * destroyed), as by the bridge's `writeTimeoutMs`. Until then the stream holds at most the
   * socket's high-water mark and one event in the response, and the events not yet written in
   * memory, which the drop frees; the task goes on and is recorded whatever its clients do, so
   * `GetTask` or a new `SubscribeToTask` finds it. Default 30,000.
   * @throws InvalidOptionError (at construction) for a value that is not a number of ms in (0, 2^31-1].
   */
  readonly writeTimeoutMs?: number;
}

/** An A2A agent serving a runner; mount {@link handler} in `http.createServer`, Express, Fastify or Hono's Node adapter. */
export interface A2AServer {
  /** The Node request handler: the card, JSON-RPC and HTTP+JSON endpoints. */
  readonly handler: (request: IncomingMessage, response: ServerResponse) => void;
  /** The agent card the server publishes. */
  readonly card: AgentCard;
  /** Cancels every running task, drops the connections stalled on a write (see `writeTimeoutMs`) and waits for the runs to end. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Serves `runner` (one `Agent` or `Thread` for every task, or a {@link RunnerFor} that picks one
 * per conversation) as an A2A agent (protocol 1.0) with the official `@a2a-js/sdk` server: agent
 * card, `SendMessage` (blocking) and `SendStreamingMessage`, `GetTask`, `CancelTask`,
 * `SubscribeToTask`, over JSON-RPC and HTTP+JSON.
 *
 * Each new message starts a run with its text parts as the prompt. The answer streams as the
 * `response` artifact (text deltas appended, then the whole text as the last chunk) and the task
 * ends `completed`. An approval the run asks for puts the task in `input-required` with the
 * request in a data part (`{ approval: { id, kind, title, toolName, input, choices, waiting } }`);
 * a message on the task with a data part `{ decision: "approve" }`, `{ decision: "deny", reason }`
 * or `{ decision: "answer", choice }`, optionally with the approval's `id` (else the oldest waiting
 * approval is answered), or the text `approve` / `deny`, answers it exactly once (a second answer
 * racing for the same approval is refused with the SDK's `UnsupportedOperationError`), and the
 * run's own approval deadline and fallback still apply. With `runOptions.suspend`, a thread turn
 * that asks a human suspends instead: the task waits `input-required` with no run open, and its
 * next message resumes the turn (`Thread.streamAnswer`). The SDK server's console diagnostics go
 * to `options.log`, one line each. A business failure ends the task `failed` with its
 * reason as text and a closed failure code under `metadata["adaptor.failure"]` (see
 * {@link A2AFailureCode}); `cancelled`, and a `CancelTask`, end it `canceled`; any other error
 * ends it `failed` with code `error` and no detail. Nothing of an error's message beyond its first
 * line, and never a stack trace, leaves the host.
 *
 * @throws TypeError for a `url` that is not http(s); `InvalidOptionError` for `runOptions.suspend`
 *   with a runner that cannot resume a suspended turn (an `Agent`: it has no `streamAnswer`).
 *
 * @example
 * const server = a2aServer(agent, { url: "http://127.0.0.1:4000", card: { name: "Fixer", description: "Fixes failing tests" } });
 * http.createServer(server.handler).listen(4000, "127.0.0.1");
 */
export function a2aServer(runner: StreamRunner | RunnerFor, options: A2AServerOptions): A2AServer {
  if (options.runOptions?.suspend !== undefined && typeof runner !== "function" && typeof runner.streamAnswer !== "function")
    throw new InvalidOptionError({
      subject: "a2aServer",
      field: "runOptions.suspend",
      reason: "needs runners that can resume a suspended turn (Thread.streamAnswer): serve a Thread, or a RunnerFor that picks threads",
    });
  const card = publicCard(options.url, options.card);
  const pacing = streamPacing(options);
  const runs = new Map<string, TaskRun>();
  // Each write of a task tells its run that the events published before it were handled.
  const taskStore = recordingStore(options.taskStore ?? new MemoryTaskStore(), (task) => runs.get(task.id)?.recorded());
  /** The message resuming each task (a suspended turn's answer), by task id, until its run is registered in `runs`. */
  const resuming = new Map<string, string>();
  let closed = false;
  const log = options.log ?? consoleWarnLog;
  const runnerOf = (task: { readonly contextId: string; readonly taskId: string }): StreamRunner =>
    typeof runner === "function" ? outsideServerLog(() => runner(task)) : runner;

  const executor: AgentExecutor = {
    async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
      const { taskId, contextId } = context;
      const live = runs.get(taskId);
      if (live) {
        live.bus = bus;
        bus.publish(AgentEvent.task(snapshot(context, TaskState.TASK_STATE_INPUT_REQUIRED)));
        const stop = live.nextStop();
        const claimed = live.takeClaim(context.userMessage.messageId);
        if (live.pending.length === 0) {
          // Nothing waits for an answer (a deadline resolved it): the task goes on.
          live.status(
            TaskState.TASK_STATE_WORKING,
            agentMessage(taskId, contextId, [textPart("no approval is waiting; the task goes on")]),
          );
          await stop;
          return;
        }
        if (claimed && live.answer(claimed)) {
          await stop;
          return;
        }
        const answer = claimed ?? parseAnswer(context.userMessage);
        if (answer?.id !== undefined && !live.pending.some((request) => request.id === answer.id)) {
          const waiting = live.pending.map((request) => request.id).join(", ");
          live.reask(`no waiting approval has the id ${JSON.stringify(answer.id)} (waiting: ${waiting})`);
          return;
        }
        if (!answer || !live.answer(answer)) {
          live.reask("that answer does not fit the waiting approval");
          return;
        }
        await stop;
        return;
      }
      const suspended = suspendedApproval(context.task);
      if (suspended) {
        await resume(context, bus, suspended);
        return;
      }
      if (context.task) {
        // A task of this server that no run serves any more (it ended, or the server restarted).
        bus.publish(AgentEvent.task(snapshot(context, TaskState.TASK_STATE_FAILED)));
        bus.publish(failedWithError(taskId, contextId, "error: the task is no longer running", false));
        return;
      }
      bus.publish(AgentEvent.task(TaskRun.initialTask(taskId, contextId, context.userMessage)));
      const prompt = messageText(context.userMessage);
      if (closed || prompt.trim() === "") {
        bus.publish(rejected(taskId, contextId, closed));
        return;
      }
      let stream: Stream;
      try {
        const target = runnerOf({ contextId, taskId });
        stream = outsideServerLog(() => target.stream(prompt, { ...options.runOptions }));
      } catch (error) {
        // A runner picker or a runner that throws: an infrastructure failure, reported without
        // detail, unless the thread key it derived from the client's contextId is refused.
        bus.publish(failedToStart(taskId, contextId, error));
        return;
      }
      await startRun(context, bus, stream);
    },
    async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
      const run = runs.get(taskId);
      if (!run) return;
      run.bus = bus;
      run.cancel();
      await run.done;
    },
  };

  /** Resumes a suspended turn with the answer `context.userMessage` carries. */
  async function resume(context: RequestContext, bus: ExecutionEventBus, approval: SuspendedApproval): Promise<void> {
    const { taskId, contextId } = context;
    const reask = (note: string) => {
      bus.publish(AgentEvent.task(snapshot(context, TaskState.TASK_STATE_INPUT_REQUIRED)));
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state: TaskState.TASK_STATE_INPUT_REQUIRED,
            message: approvalMessage(taskId, contextId, { ...approval, waiting: 1, suspended: true }, note),
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
    };
    const answer = parseAnswer(context.userMessage);
    if (answer?.id !== undefined && answer.id !== approval.id)
      return reask(`no waiting approval has the id ${JSON.stringify(answer.id)} (waiting: ${approval.id})`);
    // A suspended turn resumes in a run of its own: there is no run left to remember a rule in.
    if (answer?.remember !== undefined) return reask("a suspended turn's answer cannot remember a rule (answer without remember)");
    if (!answer || !answerFits(approval, answer)) return reask("that answer does not fit the waiting approval");
    let stream: Stream;
    try {
      if (closed) throw new Error("closed");
      const target = runnerOf({ contextId, taskId });
      if (typeof target.streamAnswer !== "function") throw new TypeError("the runner cannot resume a suspended turn");
      const streamAnswer = target.streamAnswer.bind(target);
      stream = outsideServerLog(() => streamAnswer(approval.id, decisionOf(answer), { ...options.runOptions }));
    } catch {
      return reask(closed ? "the agent is shutting down; answer again later" : "error: this agent cannot resume the turn");
    }
    bus.publish(AgentEvent.task(snapshot(context, TaskState.TASK_STATE_WORKING)));
    await startRun(context, bus, stream);
  }

  /** Serves `stream` as the run of the task and waits for its first stop (input-required, or its end). */
  async function startRun(context: RequestContext, bus: ExecutionEventBus, stream: Stream): Promise<void> {
    const { taskId, contextId } = context;
    const run = new TaskRun({
      taskId,
      contextId,
      bus,
      stream,
      store: taskStore,
      callContext: context.context,
      onDone: () => runs.delete(taskId),
    });
    runs.set(taskId, run);
    resuming.delete(taskId);
    await run.nextStop();
  }

  // Of two answers racing for one approval, the first to arrive claims it before any await; the
  // other is refused here, as an A2A error, instead of being told its answer was taken.
  const claimAnswer = (message: Message | undefined): void => {
    if (!message?.taskId) return;
    const live = runs.get(message.taskId);
    if (!live) {
      // No run: the task may be a suspended turn this message resumes; one message at a time.
      if (resuming.has(message.taskId))
        throw new UnsupportedOperationError(`task ${message.taskId} is already being resumed by another message`);
      resuming.set(message.taskId, message.messageId);
      return;
    }
    const refused = live.claim(message.messageId, parseAnswer(message));
    if (refused !== undefined) throw new UnsupportedOperationError(refused);
  };
  // Across servers sharing the stores, the thread store records one answer; an answer arriving
  // after another server's was recorded is refused too, before it could fail the task.
  const checkResume = async (message: Message | undefined, context: ServerCallContext): Promise<void> => {
    if (!message?.taskId || runs.has(message.taskId)) return;
    const task = await taskStore.load(message.taskId, context);
    const approval = suspendedApproval(task);
    if (!task || !approval) return;
    const target = runnerOf({ contextId: task.contextId, taskId: task.id });
    if (typeof target.pendingApprovals !== "function") return;
    const list = target.pendingApprovals.bind(target);
    const stored = (await outsideServerLog(list)).find((candidate) => candidate.id === approval.id);
    if (stored?.status === "answered")
      throw new UnsupportedOperationError(`approval ${approval.id} of task ${task.id} was already answered by another message`);
  };
  const releaseClaim = (message: Message | undefined): void => {
    if (!message?.taskId) return;
    if (resuming.get(message.taskId) === message.messageId) resuming.delete(message.taskId);
    runs.get(message.taskId)?.takeClaim(message.messageId);
  };
  const requestHandler = new StateNamingRequestHandler(card, taskStore, executor, {
    claim: claimAnswer,
    check: checkResume,
    release: releaseClaim,
  });
  const app = expressApp(requestHandler, options, pacing);

  return {
    handler: (req, res) => withServerLog(log, () => app(req as never, res as never)),
    card,
    async close() {
      closed = true;
      pacing.close();
      const live = [...runs.values()];
      for (const run of live) run.cancel();
      await Promise.all(live.map((run) => run.done));
    },
    async [Symbol.asyncDispose]() {
      await this.close();
    },
  };
}

/** What {@link expressApp} takes of a server's options. */
type AppOptions = Pick<A2AServerOptions, "url" | "authorize" | "allowedHosts" | "bodyTimeoutMs">;

/**
 * The pacing of a server's streams, from its `writeTimeoutMs`.
 * @throws InvalidOptionError for a `writeTimeoutMs` that is not a number of ms in (0, 2^31-1].
 */
export function streamPacing(options: Pick<A2AServerOptions, "writeTimeoutMs">): StreamPacing {
  return new StreamPacing(writeTimeoutOf(options.writeTimeoutMs));
}

/**
 * The hosts a server answers (see `allowedHosts`): the host of its `url` and the configured ones.
 * @throws InvalidOptionError for an entry that is not a host.
 */
function servedHosts(options: AppOptions): readonly string[] | "*" {
  const configured = options.allowedHosts ?? [];
  if (configured === "*") return "*";
  configured.forEach((entry, index) => {
    if (typeof entry !== "string" || hostRule(entry) === undefined) {
      throw new InvalidOptionError({
        subject: "a2a server options",
        field: `allowedHosts[${index}]`,
        reason: "is not a host (name, name:port or URL)",
      });
    }
  });
  let own: string[] = [];
  try {
    own = [new URL(options.url).host];
  } catch {
    // A url that does not parse leaves only loopback and the configured hosts.
  }
  return [...own, ...configured];
}

/**
 * The Express app of a server: any answer sent before its request's body is read closing the
 * connection, the body deadline (HTTP 408 after `bodyTimeoutMs`), the body limit (HTTP 413 with
 * the connection closed once a `Content-Length` or the body itself passes 100 kB), the `Host`
 * check (HTTP 403), the card (public), then `authorize`
 * (HTTP 401 on refusal), the HTTP+JSON interface under `/rest` and JSON-RPC at the root, their
 * event streams paced on each client's response by `pacing`, and JSON answers for Express's own
 * fallbacks (no HTML error page, no stack).
 * @throws InvalidOptionError for an `allowedHosts` entry that is not a host, or a `bodyTimeoutMs`
 *   that is not a number of ms in (0, 2^31-1].
 */
export function expressApp(requestHandler: DefaultRequestHandler, options: AppOptions, pacing: StreamPacing): express.Express {
  const hosts = servedHosts(options);
  const bodyTimeoutMs = bodyTimeoutOf(options.bodyTimeoutMs);
  const authorize = options.authorize;
  const app = express();
  app.disable("x-powered-by");
  // An answer sent before the body is read (a refusal, the card) closes the connection: a trickled body cannot hold it open.
  app.use((req, res, next) => {
    closeIfBodyUnread(req, res);
    next();
  });
  app.use(bodyDeadline(bodyTimeoutMs));
  app.use(declaredBodyLimit(MAX_REQUEST_BODY_BYTES));
  app.use((req, res, next) => (hostAllowed(req, hosts) ? next() : refuse(res, 403, "forbidden host")));
  app.use(`/${AGENT_CARD_PATH.replace(/^\//, "")}`, agentCardHandler({ agentCardProvider: requestHandler }));
  if (authorize) {
    app.use((req, res, next) => {
      Promise.resolve()
        .then(() => outsideServerLog(() => authorize(req)))
        .then(
          (ok) => (ok ? next() : refuse(res, 401, "unauthorized")),
          () => refuse(res, 401, "unauthorized"),
        );
    });
  }
  app.use(pacing.middleware);
  // Right before the SDK's parsers, which it reaches synchronously: they listen before the body flows.
  app.use(arrivingBodyLimit(MAX_REQUEST_BODY_BYTES));
  app.use("/rest", restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use("/", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  // Express's own fallbacks answer in HTML, its error page with the stack trace: answer in JSON,
  // with the status's short text only.
  app.use((_req: express.Request, res: express.Response) => refuse(res, 404, "not found"));
  app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const status = httpStatusOf(error);
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(status).json({ error: status === 413 ? "request body too large" : status < 500 ? "bad request" : "internal error" });
  });

  return app;
}

/**
 * Answers one of the server's own refusals (`{ error }`) with `connection: close`, so the connection
 * closes once it is written, for a request without a body (a `GET`) as for one whose body is unread.
 */
function refuse(res: express.Response, status: number, error: string): void {
  res.status(status).set("connection", "close").json({ error });
}

/**
 * What a message on an existing task passes before the SDK handles it: `claim` (synchronous, so
 * that of two racing answers one wins), `check` (the stores), and `release` when it was handled.
 */
export interface AnswerGate {
  readonly claim: (message: Message | undefined) => void;
  readonly check: (message: Message | undefined, context: ServerCallContext) => Promise<void>;
  readonly release: (message: Message | undefined) => void;
}

/**
 * The SDK's request handler, with each message on a task through the {@link AnswerGate} first,
 * and the refusals of a task in a terminal state naming the state
 * (`completed`, `canceled`, ...) instead of its number.
 */
export class StateNamingRequestHandler extends DefaultRequestHandler {
  readonly #gate: AnswerGate;

  constructor(card: AgentCard, store: TaskStore, executor: AgentExecutor, gate: AnswerGate, options?: DefaultRequestHandlerOptions) {
    super(card, store, executor, undefined, undefined, undefined, undefined, undefined, options);
    this.#gate = gate;
  }

  override async sendMessage(...args: Parameters<DefaultRequestHandler["sendMessage"]>): ReturnType<DefaultRequestHandler["sendMessage"]> {
    this.#gate.claim(args[0].message);
    try {
      await this.#gate.check(args[0].message, args[1]);
      return await super.sendMessage(...args);
    } catch (error) {
      throw publicError(error);
    } finally {
      this.#gate.release(args[0].message);
    }
  }

  /** The SDK's stream of the message (gated), paced on the client's response (see {@link paced}). */
  override sendMessageStream(
    ...args: Parameters<DefaultRequestHandler["sendMessageStream"]>
  ): ReturnType<DefaultRequestHandler["sendMessageStream"]> {
    return paced(this.#gatedStream(...args));
  }

  async *#gatedStream(
    ...args: Parameters<DefaultRequestHandler["sendMessageStream"]>
  ): ReturnType<DefaultRequestHandler["sendMessageStream"]> {
    this.#gate.claim(args[0].message);
    try {
      await this.#gate.check(args[0].message, args[1]);
      return yield* super.sendMessageStream(...args);
    } catch (error) {
      throw publicError(error);
    } finally {
      this.#gate.release(args[0].message);
    }
  }

  override async getTask(...args: Parameters<DefaultRequestHandler["getTask"]>): ReturnType<DefaultRequestHandler["getTask"]> {
    try {
      return await super.getTask(...args);
    } catch (error) {
      throw publicError(error);
    }
  }

  override async cancelTask(...args: Parameters<DefaultRequestHandler["cancelTask"]>): ReturnType<DefaultRequestHandler["cancelTask"]> {
    try {
      return await super.cancelTask(...args);
    } catch (error) {
      throw publicError(error);
    }
  }

  /** The task's {@link subscription}, paced on the client's response (see {@link paced}). */
  override resubscribe(...args: Parameters<DefaultRequestHandler["resubscribe"]>): ReturnType<DefaultRequestHandler["resubscribe"]> {
    return paced(this.subscription(...args));
  }

  /** The events a `SubscribeToTask` gets: the SDK's, its refusals naming the task's state. */
  protected async *subscription(
    ...args: Parameters<DefaultRequestHandler["resubscribe"]>
  ): ReturnType<DefaultRequestHandler["resubscribe"]> {
    try {
      return yield* super.resubscribe(...args);
    } catch (error) {
      throw publicError(error);
    }
  }
}

/** What a client is told of a request that failed on something else than an A2A refusal. */
export const INTERNAL_ERROR_MESSAGE = "internal error";

/**
 * What a request handler throws to the client for `error`: an A2A refusal (task not found, not
 * cancelable, ...) as it is, its state named (see {@link namingState}); anything else (a task store
 * that cannot reach its database, a fleet call that failed) an `Error` with the fixed message
 * {@link INTERNAL_ERROR_MESSAGE}, `error` as its cause, so that no address, query or stack of it
 * reaches the client (the SDK answers it as a JSON-RPC internal error with that message).
 */
export function publicError(error: unknown): unknown {
  if (error instanceof A2AError) return namingState(error);
  return new Error(INTERNAL_ERROR_MESSAGE, { cause: error });
}

/** The same error (its class and code kept), its "terminal state (3)" made "terminal state (completed)". */
export function namingState(error: unknown): unknown {
  if (error instanceof Error)
    error.message = error.message.replace(
      /\bterminal state \((\d+)\)/,
      (_match, state: string) => `terminal state (${taskStateName(Number(state) as TaskState)})`,
    );
  return error;
}

/** The HTTP status an Express error asks for (body-parser sets `status`), else 500. */
function httpStatusOf(error: unknown): number {
  const status =
    (error as { status?: unknown; statusCode?: unknown } | null)?.status ?? (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" && status >= 400 && status < 600 ? status : 500;
}

/** The card a server mounted at `url` publishes. @throws TypeError for a `url` that is not http(s). */
export function publicCard(url: string, card: A2AServerCard): AgentCard {
  const base = new URL(url);
  if (base.protocol !== "http:" && base.protocol !== "https:")
    throw new TypeError(`A2A server url must be http or https, got ${base.protocol}`);
  return buildCard(base.href.replace(/\/$/, ""), card);
}

function buildCard(url: string, card: A2AServerCard): AgentCard {
  const skills: AgentSkill[] = (card.skills && card.skills.length > 0 ? card.skills : [{}]).map((skill, index) => ({
    id: skill.id ?? (index === 0 ? "default" : `skill-${index}`),
    name: skill.name ?? card.name,
    description: skill.description ?? card.description,
    tags: [...(skill.tags ?? [])],
    examples: [...(skill.examples ?? [])],
    inputModes: [...(skill.inputModes ?? [])],
    outputModes: [...(skill.outputModes ?? [])],
    securityRequirements: [...(skill.securityRequirements ?? [])],
  }));
  return {
    name: card.name,
    description: card.description,
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url: `${url}/rest`, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" },
    ],
    provider: card.provider ? { organization: card.provider.organization, url: card.provider.url } : undefined,
    version: card.version ?? "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain"],
    skills,
    signatures: [],
  };
}

export function snapshot(context: RequestContext, state: TaskState): Task {
  const task = context.task;
  return {
    id: context.taskId,
    contextId: context.contextId,
    status: { state, message: undefined, timestamp: new Date().toISOString() },
    artifacts: task ? [...task.artifacts] : [],
    history: [...(task?.history ?? []), context.userMessage],
    metadata: task?.metadata,
  };
}

/** The fields an answer's data part may have, each a string (but `remember`, an object). */
const ANSWER_FIELDS: ReadonlySet<string> = new Set(["decision", "id", "reason", "choice"]);

/**
 * The approval answer a client message carries: a data part `{ decision, id?, reason?, choice?,
 * remember? }` (`remember` a rule object), or the text `approve`/`deny`. A data part with any other field (an edited input such as
 * `updatedInput`, which A2A does not offer) or a field that is not a string is no answer: the
 * approval is asked again rather than approved as it was.
 */
export function parseAnswer(message: Message): ApprovalAnswer | undefined {
  const data = messageData(message);
  const decision = data?.["decision"];
  if (decision === "approve" || decision === "deny" || decision === "answer") {
    for (const [key, value] of Object.entries(data ?? {})) {
      if (key === "remember" && typeof value === "object" && value !== null && !Array.isArray(value)) continue;
      if (!ANSWER_FIELDS.has(key) || typeof value !== "string") return undefined;
    }
    return {
      decision,
      ...(typeof data?.["id"] === "string" ? { id: data["id"] } : {}),
      ...(typeof data?.["reason"] === "string" ? { reason: data["reason"] } : {}),
      ...(typeof data?.["choice"] === "string" ? { choice: data["choice"] } : {}),
      ...(data?.["remember"] !== undefined ? { remember: data["remember"] as RememberRule } : {}),
    };
  }
  const text = messageText(message).trim().toLowerCase();
  if (text === "approve" || text === "yes") return { decision: "approve" };
  if (text === "deny" || text === "no") return { decision: "deny" };
  return undefined;
}

/** A suspended turn's approval, as the task's `input-required` status shows it. */
interface SuspendedApproval {
  readonly id: string;
  readonly kind: string;
  readonly title: string;
  readonly toolName?: string;
  readonly input?: unknown;
  readonly choices?: readonly unknown[];
}

/** The approval a task waits for when it is `input-required` on a suspended turn (its data part says `suspended: true`). */
function suspendedApproval(task: Task | undefined): SuspendedApproval | undefined {
  if (task?.status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) return undefined;
  const approval = messageData(task.status.message)?.["approval"] as Record<string, unknown> | undefined;
  if (approval?.["suspended"] !== true || typeof approval["id"] !== "string" || typeof approval["title"] !== "string") return undefined;
  return {
    id: approval["id"],
    kind: typeof approval["kind"] === "string" ? approval["kind"] : "permission",
    title: approval["title"],
    ...(typeof approval["toolName"] === "string" ? { toolName: approval["toolName"] } : {}),
    ...(approval["input"] !== undefined ? { input: approval["input"] } : {}),
    ...(Array.isArray(approval["choices"]) ? { choices: approval["choices"] as unknown[] } : {}),
  };
}
