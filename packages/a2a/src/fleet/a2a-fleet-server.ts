import { setMaxListeners } from "node:events";
import type { IncomingMessage } from "node:http";
import { TaskState, type Message, type StreamResponse, type Task } from "@a2a-js/sdk";
import {
  AgentEvent,
  ResultManager,
  ServerCallContext,
  type AgentExecutionEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type TaskStore,
} from "@a2a-js/sdk/server";
import { UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { isFinalState } from "@adaptor/a2a-client";
import { ApprovalNotPendingError, findError, InvalidOptionError } from "adaptor";
import {
  expressApp,
  streamPacing,
  publicError,
  parseAnswer,
  publicCard,
  snapshot,
  StateNamingRequestHandler,
  type A2AServer,
  type A2AServerCard,
} from "../server/a2a-server.js";
import { failedToStart, failedWithError, messageText, partsTextLength, rejected, statusUpdate } from "../server/parts.js";
import { consoleWarnLog, outsideServerLog, withServerLog, type A2AServerLog } from "../server/server-log.js";
import { recordingStore } from "../server/recording-store.js";
import {
  answerFits,
  approvalMessage,
  decisionOf,
  failureStatus,
  RESPONSE_ARTIFACT_ID,
  responseArtifact,
  TaskRun,
  type ApprovalAnswer,
  type AskedApproval,
} from "../server/task-run.js";
import { TextChunks } from "../server/text-chunks.js";
import type { A2AFleet, A2AFleetRun, A2AFleetRunOptions } from "./fleet-front.js";
import { RunView, type RecordedRequest, type RecordedVerdict } from "./run-view.js";

/**
 * The task metadata key under which a fleet-served task names its run and how far its stored
 * state has followed the run's log: `{ runId, sequence }`.
 */
export const FLEET_RUN_METADATA_KEY = "adaptor.fleetRun";

/** How long an `input-required` write of the whole answer waits for the chunks before it to be recorded, when nobody records them (ms). */
const UNRECORDED_SETTLE_MS = 5_000;

/** Options of {@link a2aFleetServer}. */
export interface A2AFleetServerOptions {
  /** The public base URL where the handler is mounted (as for `a2aServer`). */
  readonly url: string;
  /** The card fields the host chooses. */
  readonly card: A2AServerCard;
  /**
   * Where the A2A tasks are kept: one store every front-end shares (e.g. `PostgresTaskStore` from
   * `@adaptor/a2a/postgres`), so that any front-end answers for any task.
   */
  readonly taskStore: TaskStore;
  /** Run options of every submitted run (JSON only: model, cwd, env, timeouts, policy, metadata). */
  readonly runOptions?: A2AFleetRunOptions;
  /**
   * The thread key of a new task's run, from its conversation. Default `a2a:<contextId>`: every
   * message of one `contextId` is the next turn of one thread, in order, on whichever worker takes
   * it. Return `undefined` for a fresh conversation per task.
   */
  readonly threadKey?: (task: { readonly contextId: string; readonly taskId: string }) => string | undefined;
  /** Accepts or refuses each JSON-RPC and REST request (as for `a2aServer`). */
  readonly authorize?: (request: IncomingMessage) => boolean | Promise<boolean>;
  /** Hosts this front-end answers besides its `url`'s and loopback (as for `a2aServer`). Default `[]`. */
  readonly allowedHosts?: readonly string[] | "*";
  /** Where the server's diagnostics go (as for `a2aServer`). */
  readonly log?: A2AServerLog;
  /** Longest time a request body may take to arrive, in ms; a slower one gets HTTP 408 (as for `a2aServer`). Default 30,000. */
  readonly bodyTimeoutMs?: number;
  /** Longest wait, in ms, for a slow client's socket to take more of its event stream; then it is dropped (as for `a2aServer`). Default 30,000. */
  readonly writeTimeoutMs?: number;
}

/** What a fleet-served task's metadata says of its run. */
interface RunMark {
  readonly runId: string;
  readonly sequence: number;
}

/** How a follow of a run's log stopped. */
type Stop = "input-required" | "terminal" | "ended";

/**
 * Serves a fleet as an A2A agent: a stateless front-end (any number of them, on one task store and
 * one fleet) in front of workers on other hosts. `SendMessage` / `SendStreamingMessage` submit a
 * fleet run (the next turn of the thread `a2a:<contextId>`) and stream its events as the task's
 * status and `response` artifact updates; an approval the run asks puts the task `input-required`
 * (the same data part as `a2aServer`), and a message on the task answers it through the fleet from
 * any front-end, exactly once; `CancelTask` cancels the run on its worker; `SubscribeToTask` and
 * `GetTask` on any front-end read the run's log from PostgreSQL and bring the stored task up to
 * date, so a front-end may restart between a send and a get. Closing a front-end leaves the runs
 * to their workers.
 *
 * @throws TypeError for a `url` that is not http(s).
 *
 * @example
 * const taskStore = new PostgresTaskStore({ connectionString });
 * await taskStore.migrate();
 * const server = a2aFleetServer(fleet, { url: "http://127.0.0.1:4000", card, taskStore });
 * http.createServer(server.handler).listen(4000, "127.0.0.1");
 */
export function a2aFleetServer(fleet: A2AFleet, options: A2AFleetServerOptions): A2AServer {
  const card = publicCard(options.url, options.card);
  const pacing = streamPacing(options);
  /** The follows publishing their text in chunks on a bus, by task id: told of each completed write of their task. */
  const chunking = new Map<string, (task: Task) => void>();
  // Each write of a task tells its follow that the events published before it were handled.
  const taskStore = recordingStore(options.taskStore, (task) => chunking.get(task.id)?.(task));
  const log = options.log ?? consoleWarnLog;
  const threadKeyOf = options.threadKey ?? (({ contextId }: { contextId: string }) => `a2a:${contextId}`);
  const stopping = new AbortController();
  // Every task being followed holds listeners on it until it ends: no listener limit applies.
  setMaxListeners(0, stopping.signal);
  let closed = false;
  /** The approval each accepted answer answered, by the answering message's id. */
  const accepted = new Map<string, string>();
  /** The follows of this front-end, by task id, with what they know of the task. */
  const following = new Map<string, Promise<Stop>>();

  /** Records a task snapshot in the store (merged like any task event); failures are left to the next write. */
  const record = (callContext: ServerCallContext, task: Task): Promise<void> =>
    new ResultManager(taskStore, callContext).processEvent(AgentEvent.task(task)).catch(() => undefined);

  /** The status a verdict ends the task with, and the answer text when it completed. */
  async function terminalOf(
    run: A2AFleetRun,
    task: { readonly id: string; readonly contextId: string },
    verdict: RecordedVerdict,
    view: RunView,
  ): Promise<{ state: TaskState; message?: Message; text?: string }> {
    if (verdict.kind === "result") return { state: TaskState.TASK_STATE_COMPLETED, text: verdict.result?.text ?? view.text };
    if (verdict.kind === "cancelled") return failureStatus(task.id, task.contextId, undefined, true);
    const error = await run.result().then(
      () => new Error("the run settled without an error"),
      (reason: unknown) => reason,
    );
    return failureStatus(task.id, task.contextId, error);
  }

  /** What an `input-required` status shows of a recorded request. */
  const askOf = (request: RecordedRequest, waiting: number): AskedApproval => ({
    id: request.id,
    kind: request.kind ?? "permission",
    title: request.title ?? "approval",
    toolName: request.toolName,
    input: request.input,
    choices: request.choices,
    deadline: request.deadline ? new Date(request.deadline) : undefined,
    suggestions: request.suggestions,
    waiting,
  });

  /**
   * Follows a run's log for a task: replays it from the start (the same view on every front-end),
   * yields the A2A events of what comes after `after` (the sequence the stored task reflects), and
   * stops at the next `input-required` or terminal state. Each state change is also recorded in the
   * task store, whoever is listening. With `bus`, the answer's text is published there in chunks
   * as the task store records them (as `a2aServer` does), not yielded one update per delta.
   */
  async function* follow(
    task: { readonly id: string; readonly contextId: string },
    runId: string,
    after: number,
    shownState: TaskState,
    callContext: ServerCallContext,
    bus?: ExecutionEventBus,
  ): AsyncGenerator<AgentExecutionEvent, Stop> {
    const run = fleet.handle(runId);
    const view = new RunView();
    let shown = shownState;
    const metadata = (sequence = view.sequence) => ({ [FLEET_RUN_METADATA_KEY]: { runId, sequence } satisfies RunMark });
    const stillPending = async (id: string) => (await run.pendingApprovals()).some((pending) => pending.id === id);
    const artifact = (text: string, append: boolean, lastChunk: boolean, sequence = view.sequence) =>
      AgentEvent.artifactUpdate({
        taskId: task.id,
        contextId: task.contextId,
        artifact: responseArtifact(text),
        append,
        lastChunk,
        metadata: metadata(sequence),
      });
    /** The sequence of the last text delta given to `chunks`: a chunk reflects the log up to it. */
    let textSequence = after;
    /** The length of the answer the chunks sent so far, and of the one the store holds. */
    let sent = 0;
    let stored = 0;
    let allStored: (() => void) | undefined;
    const chunks =
      bus &&
      new TextChunks((text, append) => {
        sent = (append ? sent : 0) + text.length;
        bus.publish(artifact(text, append, false, textSequence));
      });
    const saved = (written: Task) => {
      chunks?.recorded();
      const answer = written.artifacts?.find((candidate) => candidate.artifactId === RESPONSE_ARTIFACT_ID);
      stored = answer ? partsTextLength(answer.parts) : 0;
      if (stored >= sent) allStored?.();
    };
    if (chunks) chunking.set(task.id, saved);
    /**
     * Before a write of the whole answer: sends the text not sent yet and waits until the store
     * holds every chunk sent, so that no chunk's append lands after it (a store that merges writes
     * takes a rewrite of an earlier value for a stale one). Nobody may be recording them (the
     * client left): then after {@link UNRECORDED_SETTLE_MS}.
     */
    const settle = async () => {
      if (!chunks) return;
      chunks.flush();
      if (stored >= sent || stopping.signal.aborted) return;
      await new Promise<void>((resolve) => {
        const done = () => allStored?.();
        const late = setTimeout(done, UNRECORDED_SETTLE_MS);
        stopping.signal.addEventListener("abort", done, { once: true });
        allStored = () => {
          clearTimeout(late);
          stopping.signal.removeEventListener("abort", done);
          allStored = undefined;
          resolve();
        };
      });
    };
    /** Records the new state, then returns its status update (the text before it sent first). */
    const status = async (state: TaskState, message?: Message, artifactText?: string) => {
      chunks?.flush();
      shown = state;
      const now = { state, message, timestamp: new Date().toISOString() };
      await record(callContext, {
        id: task.id,
        contextId: task.contextId,
        status: now,
        artifacts: artifactText ? [responseArtifact(artifactText)] : [],
        history: [],
        metadata: metadata(),
      });
      return AgentEvent.statusUpdate({ taskId: task.id, contextId: task.contextId, status: now, metadata: metadata() });
    };
    // Events `ask` wants out before its status (a generator cannot yield from a nested function).
    const queued: AgentExecutionEvent[] = [];
    const ask = async (request: RecordedRequest) => {
      await settle();
      const message = approvalMessage(task.id, task.contextId, askOf(request, view.pending.size));
      // The answer so far, whole: a writer that lagged behind with chunks ends on the full text.
      if (view.text) queued.push(artifact(view.text, false, false));
      return status(TaskState.TASK_STATE_INPUT_REQUIRED, message, view.text);
    };

    try {
      for await (const entry of run.events({ after: 0, signal: stopping.signal })) {
        const changes = view.apply(entry);
        if (entry.sequence <= after) continue;
        for (const change of changes) {
          if (change.kind === "text") {
            if (!chunks) yield artifact(change.text, change.append, false);
            else {
              // Text of a run that started over (a lost worker) replaces the answer so far; other
              // text continues it, also when an earlier request of the task sent the start.
              if (change.append) chunks.continueArtifact();
              else chunks.restart();
              textSequence = entry.sequence;
              chunks.add(change.text);
            }
          } else if (change.kind === "asked") {
            if (!(await stillPending(change.request.id))) continue;
            const update = await ask(change.request);
            yield* queued.splice(0);
            yield update;
            return "input-required";
          } else if (change.kind === "resolved") {
            if (shown !== TaskState.TASK_STATE_INPUT_REQUIRED) continue;
            const next = view.oldest;
            if (next && (await stillPending(next.id))) {
              const update = await ask(next);
              yield* queued.splice(0);
              yield update;
              return "input-required";
            }
            if (view.pending.size === 0) yield await status(TaskState.TASK_STATE_WORKING);
          } else if (change.kind === "verdict") {
            const end = await terminalOf(run, task, change.verdict, view);
            if (chunks) {
              // In the stream, after the last chunk: the request draining the bus records the
              // whole answer and the terminal state in order after the chunks, with no wait for
              // them to be recorded first (a task its request failed to record reads its state
              // from the run's log on the next GetTask).
              chunks.flush();
              if (end.text !== undefined) yield artifact(end.text, false, true);
              const now = { state: end.state, message: end.message, timestamp: new Date().toISOString() };
              yield AgentEvent.statusUpdate({ taskId: task.id, contextId: task.contextId, status: now, metadata: metadata() });
              return "terminal";
            }
            if (end.text !== undefined) yield artifact(end.text, false, true);
            yield await status(end.state, end.message, end.text);
            return "terminal";
          }
        }
      }
      chunks?.flush();
      return "ended";
    } finally {
      chunks?.stop();
      allStored?.();
      if (chunking.get(task.id) === saved) chunking.delete(task.id);
    }
  }

  /** Publishes a follow on `bus`, registered as this task's follow until it stops. */
  async function pump(taskId: string, events: AsyncGenerator<AgentExecutionEvent, Stop>, bus: ExecutionEventBus): Promise<Stop> {
    const done = (async () => {
      let stop: IteratorResult<AgentExecutionEvent, Stop>;
      while (!(stop = await events.next()).done) bus.publish(stop.value);
      return stop.value;
    })().catch((): Stop => "ended");
    following.set(taskId, done);
    try {
      return await done;
    } finally {
      if (following.get(taskId) === done) following.delete(taskId);
    }
  }

  /** Brings a stored task up to date with its run's log (for a reader when nobody followed it). */
  async function catchUp(task: Task, mark: RunMark, callContext: ServerCallContext): Promise<void> {
    const run = fleet.handle(mark.runId);
    const view = new RunView();
    for await (const entry of run.events({ after: 0, follow: false, signal: stopping.signal })) view.apply(entry);
    // Up to date, unless the run has its verdict: the follow recording it writes the whole answer
    // (which carries the last sequence) before the terminal state, and a read between the two
    // would otherwise keep showing the task working.
    if (view.sequence <= mark.sequence && !view.verdict) return;
    let state = TaskState.TASK_STATE_WORKING;
    let message: Message | undefined;
    let text: string | undefined = view.text || undefined;
    if (view.verdict) {
      ({ state, message, text } = await terminalOf(run, task, view.verdict, view));
    } else if (view.oldest) {
      state = TaskState.TASK_STATE_INPUT_REQUIRED;
      message = approvalMessage(task.id, task.contextId, askOf(view.oldest, view.pending.size));
    }
    await record(callContext, {
      id: task.id,
      contextId: task.contextId,
      status: { state, message, timestamp: new Date().toISOString() },
      artifacts: text ? [responseArtifact(text)] : [],
      history: [],
      metadata: { [FLEET_RUN_METADATA_KEY]: { runId: mark.runId, sequence: view.sequence } satisfies RunMark },
    });
  }

  /** A message on an `input-required` task whose answer was not taken: shows the waiting approval again, with why. */
  async function reask(context: RequestContext, bus: ExecutionEventBus, mark: RunMark, answer: ApprovalAnswer | undefined): Promise<void> {
    const { taskId, contextId } = context;
    const pending = await fleet.handle(mark.runId).pendingApprovals();
    const oldest = pending[0];
    if (!oldest) {
      // Nothing waits any more (a deadline resolved it): the task goes on.
      await pump(
        taskId,
        follow({ id: taskId, contextId }, mark.runId, mark.sequence, TaskState.TASK_STATE_INPUT_REQUIRED, context.context, bus),
        bus,
      );
      return;
    }
    const note =
      answer?.id !== undefined && !pending.some((candidate) => candidate.id === answer.id)
        ? `no waiting approval has the id ${JSON.stringify(answer.id)} (waiting: ${pending.map((candidate) => candidate.id).join(", ")})`
        : "that answer does not fit the waiting approval";
    const ask = askOf({ ...(oldest.request as RecordedRequest), id: oldest.id }, pending.length);
    bus.publish(statusUpdate(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, approvalMessage(taskId, contextId, ask, note)));
  }

  const executor: AgentExecutor = {
    async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
      const { taskId, contextId } = context;
      const task = context.task;
      if (task) {
        const mark = runMark(task);
        bus.publish(AgentEvent.task(snapshot(context, task.status?.state ?? TaskState.TASK_STATE_WORKING)));
        if (!mark) {
          bus.publish(failedWithError(taskId, contextId, "error: the task is no longer running", false));
          return;
        }
        if (accepted.has(context.userMessage.messageId)) {
          // The answer reached the fleet (the gate answered it): follow the run to its next stop.
          await pump(
            taskId,
            follow({ id: taskId, contextId }, mark.runId, mark.sequence, TaskState.TASK_STATE_INPUT_REQUIRED, context.context, bus),
            bus,
          );
          return;
        }
        await reask(context, bus, mark, parseAnswer(context.userMessage));
        return;
      }
      const initial = TaskRun.initialTask(taskId, contextId, context.userMessage);
      const prompt = messageText(context.userMessage);
      if (closed || prompt.trim() === "") {
        bus.publish(AgentEvent.task(initial));
        bus.publish(rejected(taskId, contextId, closed));
        return;
      }
      let run: { readonly id: string };
      try {
        const threadKey = outsideServerLog(() => threadKeyOf({ contextId, taskId }));
        run = await fleet.submit(prompt, {
          ...(threadKey !== undefined ? { threadKey } : {}),
          ...(options.runOptions ? { runOptions: options.runOptions } : {}),
        });
      } catch (error) {
        // The fleet refused (its queue is full, the database): no detail leaves the host; a thread
        // key the SDK refuses is the client's invalid_id.
        bus.publish(AgentEvent.task(initial));
        bus.publish(failedToStart(taskId, contextId, error));
        return;
      }
      bus.publish(
        AgentEvent.task({ ...initial, metadata: { [FLEET_RUN_METADATA_KEY]: { runId: run.id, sequence: 0 } satisfies RunMark } }),
      );
      await pump(taskId, follow({ id: taskId, contextId }, run.id, 0, TaskState.TASK_STATE_WORKING, context.context, bus), bus);
    },
    async cancelTask(taskId: string): Promise<void> {
      // The request handler cancelled the run and recorded the outcome already; a follow of this
      // front-end publishes it to its listeners when it reads the verdict.
      await following.get(taskId);
    },
  };

  const requestHandler = new FleetRequestHandler(
    card,
    taskStore,
    executor,
    {
      claim: () => {},
      // An answer is given to the fleet before the SDK records the message, so that of two answers
      // racing for one approval (on any front-ends) the loser is refused and recorded nowhere.
      check: async (message, callContext) => {
        if (!message?.taskId) return;
        const task = await taskStore.load(message.taskId, callContext);
        const mark = runMark(task);
        if (!task || !mark || ended(task)) return;
        const refuse = () => {
          throw new UnsupportedOperationError(
            `task ${task.id} is not waiting for input (an earlier answer was accepted and the run goes on)`,
          );
        };
        const answer = parseAnswer(message);
        // An answer naming its approval is put to the fleet, which says whether another won.
        if (task.status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED && answer?.id === undefined) refuse();
        if (!answer) return;
        const pending = await fleet.handle(mark.runId).pendingApprovals();
        if (pending.length === 0 && answer.id === undefined) refuse();
        const id = answer.id ?? pending[0]!.id;
        const request = pending.find((candidate) => candidate.id === id)?.request as RecordedRequest | undefined;
        if (request && !answerFits(request, answer)) return;
        try {
          const decision = decisionOf(answer);
          const remembered =
            answer.remember !== undefined && decision.outcome !== "answer" ? { ...decision, remember: answer.remember } : decision;
          await outsideServerLog(() => fleet.answer(id, remembered));
          accepted.set(message.messageId, id);
        } catch (error) {
          // A rule the fleet refuses (e.g. an allow in a read_only run): the task asks again.
          if (error instanceof InvalidOptionError && (error.field === "remember" || error.field.startsWith("remember."))) return;
          const notPending = findError(error, ApprovalNotPendingError);
          if (notPending?.status === "answered")
            throw new UnsupportedOperationError(`approval ${id} of task ${task.id} was already answered by another message`);
          if (!notPending) throw error;
          // An id no run asked: the task shows the waiting approval again, with the ids that wait.
        }
      },
      release: (message) => {
        if (message) accepted.delete(message.messageId);
      },
    },
    {
      async cancel(task, mark, callContext) {
        const settled = await fleet.handle(mark.runId).cancel("canceled through A2A");
        if (!settled) return catchUp(task, mark, callContext);
        await new ResultManager(taskStore, callContext).processEvent(
          AgentEvent.statusUpdate({
            taskId: task.id,
            contextId: task.contextId,
            status: { ...failureStatus(task.id, task.contextId, undefined, true), timestamp: new Date().toISOString() },
            metadata: undefined,
          }),
        );
      },
      catchUp,
      follow: (task, mark, callContext) =>
        follow(task, mark.runId, mark.sequence, task.status?.state ?? TaskState.TASK_STATE_WORKING, callContext),
    },
  );
  const app = expressApp(requestHandler, options, pacing);

  return {
    handler: (req, res) => withServerLog(log, () => app(req as never, res as never)),
    card,
    async close() {
      if (closed) return;
      closed = true;
      pacing.close();
      stopping.abort(new Error("the A2A front-end is closing"));
      await Promise.all([...following.values()]);
    },
    async [Symbol.asyncDispose]() {
      await this.close();
    },
  };
}

/** True for a task in a terminal state. */
function ended(task: Task): boolean {
  const state = task.status?.state;
  return (
    state !== undefined &&
    isFinalState(state) &&
    state !== TaskState.TASK_STATE_INPUT_REQUIRED &&
    state !== TaskState.TASK_STATE_AUTH_REQUIRED
  );
}

/** The run a fleet-served task's metadata names, and how far the stored task has followed it. */
function runMark(task: Task | undefined): RunMark | undefined {
  const mark = task?.metadata?.[FLEET_RUN_METADATA_KEY] as Partial<RunMark> | undefined;
  if (typeof mark?.runId !== "string") return undefined;
  return { runId: mark.runId, sequence: typeof mark.sequence === "number" ? mark.sequence : 0 };
}

/** What the fleet request handler asks of the server for a fleet-served task. */
interface FleetHooks {
  /** Cancels the task's run and records the outcome in the store (`canceled`, or the verdict the run had). */
  cancel(task: Task, mark: RunMark, callContext: ServerCallContext): Promise<void>;
  /** Brings the stored task up to date with its run's log. */
  catchUp(task: Task, mark: RunMark, callContext: ServerCallContext): Promise<void>;
  /** Follows the run from what the stored task reflects to its next stop. */
  follow(task: Task, mark: RunMark, callContext: ServerCallContext): AsyncGenerator<AgentExecutionEvent, Stop>;
}

/**
 * The request handler of a fleet front-end: `GetTask` brings the stored task up to date with its
 * run first; `CancelTask` cancels the run on its worker; `SubscribeToTask` follows the run's log
 * from PostgreSQL, so it works on any front-end.
 */
class FleetRequestHandler extends StateNamingRequestHandler {
  readonly #store: TaskStore;
  readonly #hooks: FleetHooks;

  constructor(
    card: ConstructorParameters<typeof StateNamingRequestHandler>[0],
    store: TaskStore,
    executor: AgentExecutor,
    gate: ConstructorParameters<typeof StateNamingRequestHandler>[3],
    hooks: FleetHooks,
  ) {
    // No event bus outlives its request: a task waiting for input is taken up again from the run's
    // log by whichever front-end gets its next message.
    super(card, store, executor, gate, { keepBusAliveStates: [] });
    this.#store = store;
    this.#hooks = hooks;
  }

  async #open(id: string, context: ServerCallContext): Promise<{ task: Task; mark: RunMark } | undefined> {
    const task = await this.#store.load(id, context);
    const mark = runMark(task);
    return task && mark && !ended(task) ? { task, mark } : undefined;
  }

  override async getTask(...args: Parameters<StateNamingRequestHandler["getTask"]>): ReturnType<StateNamingRequestHandler["getTask"]> {
    try {
      const open = await this.#open(args[0].id, args[1]);
      if (open) await this.#hooks.catchUp(open.task, open.mark, args[1]);
    } catch (error) {
      throw publicError(error);
    }
    return super.getTask(...args);
  }

  override async cancelTask(
    ...args: Parameters<StateNamingRequestHandler["cancelTask"]>
  ): ReturnType<StateNamingRequestHandler["cancelTask"]> {
    try {
      const open = await this.#open(args[0].id, args[1]);
      if (open) await this.#hooks.cancel(open.task, open.mark, args[1]);
    } catch (error) {
      throw publicError(error);
    }
    return super.cancelTask(...args);
  }

  protected override async *subscription(
    ...args: Parameters<StateNamingRequestHandler["resubscribe"]>
  ): ReturnType<StateNamingRequestHandler["resubscribe"]> {
    let open: { task: Task; mark: RunMark } | undefined;
    try {
      open = await this.#open(args[0].id, args[1]);
    } catch (error) {
      throw publicError(error);
    }
    if (!open) return yield* super.subscription(...args);
    try {
      yield { payload: { $case: "task", value: open.task } } as StreamResponse;
      for await (const event of this.#hooks.follow(open.task, open.mark, args[1])) yield streamResponse(event);
    } catch (error) {
      throw publicError(error);
    }
  }
}

/** An execution event as the stream response a subscriber receives. */
function streamResponse(event: AgentExecutionEvent): StreamResponse {
  switch (event.kind) {
    case "statusUpdate":
      return { payload: { $case: "statusUpdate", value: event.data } } as StreamResponse;
    case "artifactUpdate":
      return { payload: { $case: "artifactUpdate", value: event.data } } as StreamResponse;
    case "task":
      return { payload: { $case: "task", value: event.data } } as StreamResponse;
    default:
      return { payload: { $case: "message", value: event.data } } as StreamResponse;
  }
}
