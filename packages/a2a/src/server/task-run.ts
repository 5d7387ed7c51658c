import { TaskState, type Artifact, type Message, type Task } from "@a2a-js/sdk";
import { AgentEvent, ResultManager, type ExecutionEventBus, type ServerCallContext, type TaskStore } from "@a2a-js/sdk/server";
import { FAILURE_METADATA_KEY } from "@adaptor/a2a-client";
import type { ApprovalDecision, ApprovalRequest, PendingApproval, RememberRule, Stream } from "adaptor";
import { askFactsOf, decisionRefusal, rememberError } from "adaptor/internal";
import { taskFailure } from "./failure.js";
import { agentMessage, dataPart, textPart } from "./parts.js";
import { TextChunks } from "./text-chunks.js";

/** The artifact that carries the run's answer. */
export const RESPONSE_ARTIFACT_ID = "response";

/** The `response` artifact holding `text`. */
export function responseArtifact(text: string): Artifact {
  return {
    artifactId: RESPONSE_ARTIFACT_ID,
    name: "response",
    description: "",
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
  };
}

/** What a client sends to answer an `input-required` task, as a data part. */
export interface ApprovalAnswer {
  /** The approval's `id` (from the `input-required` message); default: the oldest waiting one. */
  readonly id?: string;
  /**
   * `approve` or `deny` a permission or plan review; `answer` a question with `choice`, or a
   * permission that lists `choices` with one of their keys.
   */
  readonly decision: "approve" | "deny" | "answer";
  /** Why, for `deny`; the agent reads it as the tool's error text. */
  readonly reason?: string;
  /** The chosen key, for `answer`. */
  readonly choice?: string;
  /**
   * For `approve` or `deny` of a live permission: a rule the run remembers ("always allow",
   * "always deny"; one of the approval's `suggestions`), as `request.approve({ remember })` takes
   * it. A suspended turn's answer takes none.
   */
  readonly remember?: RememberRule;
}

/**
 * The decision an answer makes; a denial without a reason is denied "by the A2A client".
 */
export function decisionOf(answer: ApprovalAnswer): ApprovalDecision {
  if (answer.decision === "approve") return { outcome: "approve" };
  if (answer.decision === "deny") return { outcome: "deny", reason: answer.reason ?? "denied by the A2A client" };
  return { outcome: "answer", choice: answer.choice ?? "" };
}

/**
 * Whether `answer` fits `approval` (a request's fields as JSON: `kind`, `choices`) as the SDK's own
 * answer methods would take it: `answer` needs a `choice`, one of the `choices` of a permission.
 */
export function answerFits(
  approval: {
    readonly id: string;
    readonly kind?: string | undefined;
    readonly toolName?: string | undefined;
    readonly input?: unknown;
    readonly choices?: readonly unknown[] | undefined;
  },
  answer: ApprovalAnswer,
): boolean {
  if (answer.decision === "answer" && answer.choice === undefined) return false;
  if (answer.remember !== undefined) {
    if (answer.decision === "answer") return false;
    const ask = { id: approval.id, kind: approval.kind ?? "permission", toolName: approval.toolName, input: approval.input };
    if (rememberError(answer.remember, ask, "answer", answer.decision === "deny" ? "deny" : "approve") !== undefined) return false;
  }
  return decisionRefusal(askFactsOf(approval.id, approval), decisionOf(answer), "answer") === undefined;
}

/**
 * One run behind one A2A task: pumps the run's events onto the task's event bus and holds the
 * approval it is waiting for. Each `execute` of the task waits for {@link nextStop}: the next
 * `input-required` state, or the end of the run.
 */
export class TaskRun {
  readonly taskId: string;
  readonly contextId: string;
  bus: ExecutionEventBus;
  #stream: Stream;
  /** Approvals the run waits for, oldest first. */
  readonly #pending = new Map<string, ApprovalRequest>();
  /** The task is `input-required`. */
  #waiting = false;
  /** Approvals an accepted answer is about to answer, by the answering message's id. */
  readonly #claims = new Map<string, { readonly request: ApprovalRequest; readonly answer: ApprovalAnswer }>();
  /** Ids of the approvals an A2A answer has answered. */
  readonly #answered = new Set<string>();
  #waiters: (() => void)[] = [];
  #ended = false;
  #cancelRequested = false;
  /** The answer's text deltas, published in chunks as the task store records them. */
  readonly #chunks = new TextChunks((text, append) => this.#artifact(text, append, false));
  readonly done: Promise<void>;

  readonly #store: TaskStore;
  readonly #callContext: ServerCallContext;
  #persisting: Promise<void> = Promise.resolve();

  constructor(init: {
    taskId: string;
    contextId: string;
    bus: ExecutionEventBus;
    stream: Stream;
    store: TaskStore;
    callContext: ServerCallContext;
    onDone: () => void;
  }) {
    this.taskId = init.taskId;
    this.contextId = init.contextId;
    this.bus = init.bus;
    this.#stream = init.stream;
    this.#store = init.store;
    this.#callContext = init.callContext;
    this.done = this.#pump()
      .then(() => this.#persisting)
      .finally(() => {
        this.#chunks.stop();
        this.#ended = true;
        this.#release();
        init.onDone();
      });
  }

  /** The approvals the run waits for, oldest first. */
  get pending(): readonly ApprovalRequest[] {
    this.#prune();
    return [...this.#pending.values()];
  }

  /** Resolves at the next `input-required` state or when the run has ended (at once if it has). */
  nextStop(): Promise<void> {
    if (this.#ended) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Shows the oldest waiting approval again, with `note` first (an answer that did not fit). */
  reask(note: string): void {
    this.#prune();
    const next = this.#pending.values().next().value;
    if (next) this.#askFor(next, note);
  }

  /** Cancels the run; the task ends `canceled`. */
  cancel(): void {
    this.#cancelRequested = true;
    this.#stream.cancel();
  }

  /**
   * Reserves the approval `answer` targets for the message `messageId`, at once (before the
   * message is processed), so that of two answers racing for one approval exactly one wins.
   * Returns why the message is refused, or `undefined` when it may go on: claimed (see
   * {@link takeClaim}), or left for the run to re-ask (an answer that does not parse or names an
   * approval this run never had).
   */
  claim(messageId: string, answer: ApprovalAnswer | undefined): string | undefined {
    this.#prune();
    const claimed = new Set([...this.#claims.values()].map((claim) => claim.request.id));
    if (answer?.id !== undefined && (claimed.has(answer.id) || this.#answered.has(answer.id)))
      return `approval ${answer.id} of task ${this.taskId} was already answered by another message`;
    if (!this.#waiting || this.#pending.size === 0)
      return `task ${this.taskId} is not waiting for input (an earlier answer was accepted and the run goes on)`;
    if (!answer) return undefined;
    const request = answer.id !== undefined ? this.#pending.get(answer.id) : this.#pending.values().next().value;
    if (!request) return undefined;
    if (claimed.has(request.id)) return `approval ${request.id} of task ${this.taskId} was already answered by another message`;
    this.#claims.set(messageId, { request, answer: { ...answer, id: request.id } });
    return undefined;
  }

  /** The answer {@link claim} reserved for `messageId`, removed from the reservations. */
  takeClaim(messageId: string): ApprovalAnswer | undefined {
    const claim = this.#claims.get(messageId);
    this.#claims.delete(messageId);
    return claim?.answer;
  }

  /**
   * Answers the pending approval. Returns false (and changes nothing) when nothing is pending or
   * the answer does not fit the request.
   */
  answer(answer: ApprovalAnswer): boolean {
    this.#prune();
    const request = answer.id !== undefined ? this.#pending.get(answer.id) : this.#pending.values().next().value;
    if (!request) return false;
    try {
      const remembered = answer.remember !== undefined ? { remember: answer.remember } : {};
      if (answer.decision === "approve") request.approve(remembered);
      else if (answer.decision === "deny") request.deny(answer.reason, remembered);
      else if (typeof answer.choice === "string") request.answer(answer.choice);
      else return false;
    } catch {
      return false;
    }
    this.#pending.delete(request.id);
    this.#answered.add(request.id);
    this.#prune();
    const next = this.#pending.values().next().value;
    if (next) {
      // Another approval still waits: the task stays input-required and shows it.
      this.#askFor(next);
    } else {
      this.#waiting = false;
      this.status(TaskState.TASK_STATE_WORKING);
    }
    return true;
  }

  /**
   * A write of this task completed (the request serving it handled the events published before):
   * the text that arrived meanwhile is sent as the next chunk.
   */
  recorded(): void {
    this.#chunks.recorded();
  }

  /** Forgets approvals that were resolved elsewhere (their deadline and fallback, the run's end). */
  #prune(): void {
    for (const [id, request] of this.#pending) if (request.status !== "pending") this.#pending.delete(id);
  }

  /** Puts the task in `input-required` for `request` and wakes the executes waiting for a stop. */
  #askFor(request: ApprovalRequest, note?: string): void {
    this.status(
      TaskState.TASK_STATE_INPUT_REQUIRED,
      approvalMessage(this.taskId, this.contextId, { ...request, waiting: this.#pending.size }, note),
    );
    this.#release();
  }

  /**
   * Publishes a status update of this task, and records it in the task store itself: a run goes on
   * after its requests returned (an approval deadline, a client that went away), and the SDK
   * records only what a live request consumes.
   */
  status(state: TaskState, message?: Message, artifactText?: string): void {
    this.#chunks.flush();
    const status = { state, message, timestamp: new Date().toISOString() };
    this.bus.publish(AgentEvent.statusUpdate({ taskId: this.taskId, contextId: this.contextId, status, metadata: undefined }));
    const artifacts = artifactText === undefined ? [] : [responseArtifact(artifactText)];
    const snapshot: Task = { id: this.taskId, contextId: this.contextId, status, artifacts, history: [], metadata: undefined };
    // A task event merges by artifact id and keeps the stored history, so recording it after a live
    // request did the same is harmless. Serialised, so the last state written is the last published.
    this.#persisting = this.#persisting
      .then(() => new ResultManager(this.#store, this.#callContext).processEvent(AgentEvent.task(snapshot)))
      .catch(() => undefined);
  }

  /** The task as first published. */
  static initialTask(taskId: string, contextId: string, userMessage: Message, history: readonly Message[] = []): Task {
    return {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [...history, userMessage],
      metadata: undefined,
    };
  }

  #release(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  #artifact(text: string, append: boolean, lastChunk: boolean): void {
    this.bus.publish(
      AgentEvent.artifactUpdate({
        taskId: this.taskId,
        contextId: this.contextId,
        artifact: responseArtifact(text),
        append,
        lastChunk,
        metadata: undefined,
      }),
    );
  }

  async #pump(): Promise<void> {
    try {
      for await (const event of this.#stream) {
        if (this.#waiting && event.type !== "approval-request") {
          this.#prune();
          if (this.#pending.size === 0) {
            // Resolved without an A2A answer (a deadline and its fallback): the run goes on.
            this.#waiting = false;
            this.status(TaskState.TASK_STATE_WORKING);
          }
        }
        if (event.type === "text-delta" && event.text) {
          this.#chunks.add(event.text);
        } else if (event.type === "approval-request") {
          const request = event.request;
          if (request.status !== "pending") continue;
          this.#pending.set(request.id, request);
          this.#waiting = true;
          this.#askFor(request);
        }
      }
      const result = await this.#stream.result();
      if (result.status === "suspended" && result.pendingApproval) {
        // The turn suspended on a stored approval: the task waits in input-required with no run
        // open; the task's next message answers it and resumes the turn (Thread.streamAnswer).
        this.status(
          TaskState.TASK_STATE_INPUT_REQUIRED,
          approvalMessage(this.taskId, this.contextId, { ...suspendedAsk(result.pendingApproval), waiting: 1, suspended: true }),
        );
        return;
      }
      this.#chunks.flush();
      this.#chunks.stop();
      this.#artifact(result.text, false, true);
      this.status(TaskState.TASK_STATE_COMPLETED, undefined, result.text);
    } catch (error) {
      this.#pending.clear();
      const { state, message } = failureStatus(this.taskId, this.contextId, error, this.#cancelRequested);
      this.status(state, message);
    }
  }
}

/**
 * The status a run's rejection ends its task with: `canceled` (code `cancelled`) when the task was
 * canceled or the run's reason is `cancelled`, else `failed` with the {@link taskFailure} code and text.
 */
export function failureStatus(taskId: string, contextId: string, error: unknown, canceled = false): { state: TaskState; message: Message } {
  const failure = taskFailure(error);
  const cancel = canceled || failure.code === "cancelled";
  const message = agentMessage(taskId, contextId, [textPart(cancel ? "cancelled: the task was canceled" : failure.message)], {
    [FAILURE_METADATA_KEY]: { code: cancel ? "cancelled" : failure.code, retryable: cancel ? false : failure.retryable },
  });
  return { state: cancel ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED, message };
}

/** What an `input-required` status shows of one approval. */
export interface AskedApproval {
  readonly id: string;
  readonly kind: string;
  readonly title: string;
  readonly toolName?: string | undefined;
  readonly input?: unknown;
  readonly choices?: readonly unknown[] | undefined;
  /** Protocol detail; shown for an `elicitation` (its server, message, mode, form schema or URL). */
  readonly details?: Readonly<Record<string, unknown>> | undefined;
  readonly deadline?: Date | undefined;
  /** Rules an answer could remember (the request's `suggestions`); none for a suspended turn's. */
  readonly suggestions?: readonly unknown[] | undefined;
  /** How many approvals wait. */
  readonly waiting: number;
  /** The turn suspended on it: it is stored, and no run is open until the answer resumes it. */
  readonly suspended?: boolean;
}

/** The fields of a suspended turn's stored approval an `input-required` status shows. */
function suspendedAsk(pending: PendingApproval): Omit<AskedApproval, "waiting"> {
  return {
    id: pending.id,
    kind: pending.kind,
    title: pending.title,
    toolName: pending.toolName,
    input: pending.input,
    choices: pending.choices,
    deadline: pending.deadline,
  };
}

/**
 * The status message of an `input-required` task: the approval's title with how to answer (after
 * `note`, when an answer did not fit), and the data part `{ approval }`. Of the agent's values
 * (`input`, `choices`, `details`), one JSON cannot encode (a `BigInt`, a cycle) is left out and
 * named in `unencodable`, so that the task still reaches `input-required` and can be answered.
 */
export function approvalMessage(taskId: string, contextId: string, ask: AskedApproval, note?: string): Message {
  const unencodable: string[] = [];
  const encodable = (field: string, value: unknown): boolean => {
    try {
      JSON.stringify(value);
      return true;
    } catch {
      unencodable.push(field);
      return false;
    }
  };
  const approval = {
    id: ask.id,
    kind: ask.kind,
    title: ask.title,
    ...(ask.toolName !== undefined ? { toolName: ask.toolName } : {}),
    ...(ask.input !== undefined && encodable("input", ask.input) ? { input: ask.input } : {}),
    ...(ask.choices && encodable("choices", ask.choices) ? { choices: ask.choices } : {}),
    ...(ask.kind === "elicitation" && ask.details && encodable("details", ask.details) ? { details: ask.details } : {}),
    ...(unencodable.length > 0 ? { unencodable } : {}),
    ...(ask.deadline ? { deadline: ask.deadline.toISOString() } : {}),
    ...(ask.suggestions && ask.suggestions.length > 0 && !ask.suspended ? { suggestions: ask.suggestions } : {}),
    waiting: ask.waiting,
    ...(ask.suspended ? { suspended: true } : {}),
  };
  const keys = (ask.choices ?? []).flatMap((c) => {
    const key = typeof c === "object" && c !== null ? (c as { key?: unknown }).key : undefined;
    return typeof key === "string" ? [JSON.stringify(key)] : [];
  });
  const hint =
    ask.kind === "question"
      ? 'answer with { decision: "answer", choice }'
      : ask.kind === "elicitation"
        ? 'answer with { decision: "approve", updatedInput } (the form\'s content, checked against details.requestedSchema; none for a URL), { decision: "deny", reason } (decline) or { decision: "answer", choice: "cancel" }'
        : ask.kind === "permission" && keys.length > 0
          ? `answer with { decision: "approve" }, { decision: "deny", reason } or { decision: "answer", choice } (choice one of ${keys.join(", ")})`
          : 'answer with { decision: "approve" } or { decision: "deny", reason }';
  const text = `${note ? `${note}. ` : ""}${ask.title} (${hint})`;
  return agentMessage(taskId, contextId, [textPart(text), dataPart({ approval })]);
}
