import type { Task, TaskState } from "@a2a-js/sdk";
import { TASK_STATE } from "../client/protocol-values.js";
import { DriverError, ErrCode, findError, isError } from "@adaptor/errors";
import type { A2AClient } from "../client/a2a-client.js";
import { cancelInBackground, secretsOf, textOf } from "../client/a2a-client.js";
import { redactCredentials } from "../errors/sanitize.js";
import { taskStateName, type A2AStreamEvent } from "../client/stream-event.js";
import { ProtocolError } from "../errors/protocol-error.js";
import { ErrInvalidAgentCard, ErrNotFound, ErrProtocol, ErrUnauthorized, ErrUnsupported, ErrUntrustedOrigin } from "../errors/sentinels.js";
import { StreamRecoveryError } from "../errors/stream-recovery-error.js";
import { DelegationError, type DelegationErrorCode } from "./delegation-error.js";

/** Metadata key under which an adaptor A2A server reports a failed task's closed failure code. */
export const FAILURE_METADATA_KEY = "adaptor.failure";

/**
 * Default of `DelegateOptions.maxTextChars`: the most answer text one delegation holds, in
 * UTF-16 code units (4 Mi, what one stream event may carry).
 */
export const DEFAULT_MAX_DELEGATION_TEXT_CHARS = 4 * 1024 * 1024;

/**
 * Longest remote status text a `DelegationError` message quotes, in characters (as the A2A
 * server's failure text); a longer one is cut and says so.
 */
export const MAX_REMOTE_MESSAGE_CHARS = 500;

/** A completed delegation. */
export interface DelegationResult {
  /** The remote task. */
  readonly taskId: string;
  /** The remote conversation, for a follow-up delegation. */
  readonly contextId: string;
  /** The remote agent's answer: its artifacts' text, else its final status message's text. */
  readonly text: string;
}

/** Progress of a delegation, as {@link delegate} reports it. */
export interface DelegationProgress {
  /** `status` (a state change, with its message text), `artifact` (output text), `recovered` (a resubscription after a disconnect). */
  readonly kind: "status" | "artifact" | "recovered";
  readonly taskId: string;
  /** The remote state's short name, for `status`. */
  readonly state?: string;
  readonly text?: string;
  /** The resubscription number, for `recovered`. */
  readonly attempt?: number;
}

/** Options of {@link delegate}. */
export interface DelegateOptions {
  /** Continue a remote conversation. */
  readonly contextId?: string;
  /**
   * Aborts the delegation: it rejects at once with the abort reason as is (not a
   * `DelegationError`), and the remote task's cancel request goes on in the background (see
   * {@link delegate}).
   */
  readonly signal?: AbortSignal;
  /**
   * Deadline for the whole delegation, in milliseconds: when it passes, `DelegationError`
   * `timeout` is thrown at once and the remote task's cancel request goes on in the background
   * (see {@link delegate}). Default: none.
   */
  readonly timeoutMs?: number;
  /** Called with each progress event. */
  readonly onProgress?: (progress: DelegationProgress) => void;
  /**
   * The most answer text the delegation holds, in UTF-16 code units: the artifacts' text (appended
   * chunks joined) or the final message. Past it the remote task is canceled and `DelegationError`
   * `output_too_large` thrown (its `cause` a `DriverError` coded `RESOURCE_EXHAUSTED`).
   * Default 4 Mi characters ({@link DEFAULT_MAX_DELEGATION_TEXT_CHARS}).
   */
  readonly maxTextChars?: number;
}

/**
 * Sends `task` to the remote agent (streaming when its card says it streams) and waits for the
 * remote task to complete.
 *
 * A delegation that ends before its remote task does (its deadline passed, `signal` aborted, the
 * answer passed `maxTextChars`) settles at once: the remote task's `CancelTask` request is sent
 * in the background, without waiting for the remote's answer. That request is given up after
 * {@link BACKGROUND_CANCEL_TIMEOUT_MS} (5 s) or when `client.close()` is called (which waits for
 * it to end); its failure is ignored, never an unhandled rejection.
 *
 * @returns the remote answer when the task completed.
 * @throws DelegationError for every remote or business failure (a task that failed, was
 *   rejected or canceled, needs input or authentication; an unreachable agent, a refused
 *   credential, a protocol violation, a lost stream, the deadline); the signal's reason when
 *   `signal` aborts.
 */
export async function delegate(client: A2AClient, task: string, options: DelegateOptions = {}): Promise<DelegationResult> {
  const { timeoutMs, ...rest } = options;
  return delegateBy(client, task, rest, timeoutMs !== undefined ? deadlineOf(timeoutMs) : undefined);
}

/** A delegation's deadline: the signal that fires at it, and its length for the error message. */
export interface Deadline {
  readonly signal: AbortSignal;
  readonly ms: number;
}

/** A {@link Deadline} `ms` milliseconds from now. */
export function deadlineOf(ms: number): Deadline {
  return { signal: AbortSignal.timeout(ms), ms };
}

/** The `timeout` DelegationError of a delegation that passed its deadline of `ms` milliseconds. */
export function delegationTimeout(ms: number, taskId: string | undefined, op?: string): DelegationError {
  return new DelegationError({
    code: "timeout",
    message: `the remote agent did not finish within ${ms} ms`,
    retryable: true,
    metadata: { ...(taskId ? { taskId } : {}), ...(op ? { op } : {}) },
  });
}

/** {@link delegate} against a deadline that may have started earlier (e.g. before the client connected). */
export async function delegateBy(
  client: A2AClient,
  task: string,
  options: Omit<DelegateOptions, "timeoutMs">,
  deadlineAt: Deadline | undefined,
): Promise<DelegationResult> {
  const deadline = deadlineAt?.signal;
  const signal = anySignal(options.signal, deadline);
  const maxChars = options.maxTextChars ?? DEFAULT_MAX_DELEGATION_TEXT_CHARS;
  if (!Number.isSafeInteger(maxChars) || maxChars <= 0) throw new TypeError(`maxTextChars must be a positive integer, got ${maxChars}`);
  let taskId: string | undefined;
  // The delegation settles at once; the remote task's cancel request goes on in the background.
  const cancelRemote = (): void => {
    if (taskId) cancelInBackground(client, taskId);
  };
  try {
    const sendOptions = { ...(options.contextId ? { contextId: options.contextId } : {}), ...(signal ? { signal } : {}) };
    let final: Task | undefined;
    const artifacts = new ArtifactTexts(maxChars);
    if (client.card.capabilities?.streaming) {
      for await (const event of client.stream(task, sendOptions)) {
        taskId ??= event.taskId;
        report(event, options.onProgress, artifacts);
        if (event.kind === "message")
          return {
            taskId: event.taskId ?? "",
            contextId: event.message.contextId,
            text: withinLimit(textOf(event.message.parts), maxChars),
          };
        if (event.kind === "task") final = event.task;
        if (event.kind === "status-update" && event.final)
          final = { ...(final ?? emptyTask(event.taskId, event.update.contextId)), status: event.update.status };
      }
    } else {
      const reply = await client.send(task, sendOptions);
      if ("parts" in reply) return { taskId: reply.taskId, contextId: reply.contextId, text: withinLimit(textOf(reply.parts), maxChars) };
      final = reply;
      taskId = reply.id;
      for (const artifact of reply.artifacts) artifacts.set(artifact.artifactId, textOf(artifact.parts), false);
    }
    if (!final) throw new DelegationError({ code: "protocol", message: "the remote stream ended without a task", retryable: false });
    return outcome(final, artifacts, secretsOf(client), maxChars);
  } catch (error) {
    if (options.signal?.aborted) {
      // The caller gave up (e.g. the parent run was cancelled): the remote task goes too.
      cancelRemote();
      throw options.signal.reason;
    }
    if (deadline?.aborted) {
      cancelRemote();
      throw delegationTimeout(deadlineAt!.ms, taskId);
    }
    if (error instanceof DelegationError && error.code === "output_too_large") {
      // The remote task would go on producing the answer for nobody.
      cancelRemote();
      throw outputTooLarge(maxChars, taskId);
    }
    throw toDelegationError(error, taskId);
  }
}

/** The text of each artifact of a delegation (appended chunks joined), with their total bounded. */
class ArtifactTexts {
  readonly #texts = new Map<string, string>();
  #total = 0;
  constructor(readonly maxChars: number) {}

  /**
   * Sets artifact `id` to `text`, or appends `text` to it.
   * @throws DelegationError `output_too_large` when the total would pass `maxChars` (nothing is kept of this chunk).
   */
  set(id: string, text: string, append: boolean): void {
    const before = this.#texts.get(id) ?? "";
    const total = this.#total - (append ? 0 : before.length) + text.length;
    if (total > this.maxChars) throw outputTooLarge(this.maxChars);
    this.#texts.set(id, append ? before + text : text);
    this.#total = total;
  }

  /** Every artifact's text, joined in the order they first came. */
  joined(): string {
    return [...this.#texts.values()].join("");
  }
}

/** `text`, when it is at most `maxChars` long. @throws DelegationError `output_too_large` otherwise. */
function withinLimit(text: string, maxChars: number): string {
  if (text.length > maxChars) throw outputTooLarge(maxChars);
  return text;
}

/** The `output_too_large` DelegationError of an answer longer than `maxChars`. */
function outputTooLarge(maxChars: number, taskId?: string): DelegationError {
  const reason = `the remote agent's answer is longer than ${maxChars} characters (maxTextChars)`;
  return new DelegationError({
    code: "output_too_large",
    message: `${reason}; the delegation was stopped and the remote task canceled`,
    retryable: false,
    metadata: taskId ? { taskId } : {},
    cause: new DriverError({ op: "delegate", device: "a2a", code: ErrCode.ResourceExhausted, cause: reason }),
  });
}

function report(event: A2AStreamEvent, onProgress: DelegateOptions["onProgress"], artifacts: ArtifactTexts): void {
  if (event.kind === "artifact-update") {
    // A chunk with `append` extends its artifact; one without replaces it.
    artifacts.set(event.update.artifact?.artifactId ?? "", event.text, event.update.append);
    onProgress?.({ kind: "artifact", taskId: event.taskId, text: event.text });
  } else if (event.kind === "status-update") {
    onProgress?.({ kind: "status", taskId: event.taskId, state: taskStateName(event.state), ...(event.text ? { text: event.text } : {}) });
  } else if (event.kind === "recovered") {
    onProgress?.({ kind: "recovered", taskId: event.taskId, attempt: event.attempt });
  } else if (event.kind === "task") {
    onProgress?.({ kind: "status", taskId: event.taskId, state: taskStateName(event.state) });
  }
}

function outcome(task: Task, artifacts: ArtifactTexts, secrets: readonly string[], maxChars: number): DelegationResult {
  const state = task.status?.state ?? TASK_STATE.UNSPECIFIED;
  const statusText = textOf(task.status?.message?.parts ?? []);
  if (state === TASK_STATE.COMPLETED) {
    const fromTask = task.artifacts.map((artifact) => textOf(artifact.parts)).join("");
    return { taskId: task.id, contextId: task.contextId, text: withinLimit(fromTask || artifacts.joined() || statusText, maxChars) };
  }
  const failure = task.status?.message?.metadata?.[FAILURE_METADATA_KEY] as { code?: unknown; retryable?: unknown } | undefined;
  const metadata = {
    taskId: task.id,
    contextId: task.contextId,
    ...(typeof failure?.code === "string" ? { failure: failure.code } : {}),
  };
  const remoteStatus = taskStateName(state);
  const codes: Partial<Record<TaskState, DelegationErrorCode>> = {
    [TASK_STATE.FAILED]: "remote_failed",
    [TASK_STATE.REJECTED]: "rejected",
    [TASK_STATE.CANCELED]: "canceled",
    [TASK_STATE.INPUT_REQUIRED]: "input_required",
    [TASK_STATE.AUTH_REQUIRED]: "auth_required",
  };
  const code = codes[state] ?? "protocol";
  // The remote's status text reaches the model: credentials it echoes are redacted first, and it is cut.
  const message = cutRemoteText(redactCredentials(statusText, secrets)) || `the remote task ended ${remoteStatus}`;
  throw new DelegationError({ code, message: `remote agent: ${message}`, retryable: failure?.retryable === true, remoteStatus, metadata });
}

/** `text` cut to {@link MAX_REMOTE_MESSAGE_CHARS}, saying how long it was when it is cut. */
function cutRemoteText(text: string): string {
  if (text.length <= MAX_REMOTE_MESSAGE_CHARS) return text;
  return `${text.slice(0, MAX_REMOTE_MESSAGE_CHARS)}… (cut: ${text.length} characters in all)`;
}

/** The DelegationError for a client failure of a delegation; an unexpected error stays its `cause`. */
export function toDelegationError(error: unknown, taskId: string | undefined): DelegationError {
  const existing = findError(error, DelegationError);
  if (existing) return existing;
  const protocol = findError(error, ProtocolError);
  const metadata: Record<string, unknown> = { ...(taskId ? { taskId } : {}), ...(protocol ? { op: protocol.op } : {}) };
  const lost = findError(error, StreamRecoveryError);
  if (lost)
    return new DelegationError({
      code: "stream_lost",
      message: "the connection to the remote agent was lost and could not be resumed",
      retryable: true,
      metadata: { ...metadata, taskId: lost.taskId },
    });
  const pick = (): [DelegationErrorCode, boolean, string] => {
    if (isError(error, ErrUntrustedOrigin)) return ["untrusted_origin", false, "the remote agent's address is not a trusted origin"];
    if (isError(error, ErrUnauthorized)) return ["unauthorized", false, "the remote agent refused the credentials"];
    if (isError(error, ErrInvalidAgentCard)) return ["invalid_agent_card", false, "the remote agent's card is invalid"];
    if (isError(error, ErrNotFound)) return ["not_found", false, "the remote task does not exist"];
    if (isError(error, ErrUnsupported)) return ["unsupported", false, "the remote agent does not support this request"];
    const driver = findError(error, DriverError);
    if (driver?.code === ErrCode.ServiceUnavailable) return ["unreachable", true, "the remote agent is unreachable"];
    if (driver?.code === ErrCode.Timeout) return ["timeout", true, "the remote agent did not answer in time"];
    if (isError(error, ErrProtocol)) return ["protocol", false, "the remote agent broke the A2A protocol"];
    return ["protocol", false, "the delegation failed"];
  };
  const [code, retryable, message] = pick();
  // Not one of the client's identities: what went wrong stays on `cause`, for logs.
  const unexpected = !protocol && !isError(error, ErrProtocol);
  return new DelegationError({ code, message, retryable, metadata, ...(unexpected ? { cause: error } : {}) });
}

function emptyTask(id: string, contextId: string): Task {
  return { id, contextId, status: undefined, artifacts: [], history: [], metadata: undefined };
}

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  return present.length === 0 ? undefined : present.length === 1 ? present[0] : AbortSignal.any(present);
}
