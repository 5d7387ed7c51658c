import { Role, TaskState, type Message, type Part } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutionEvent } from "@a2a-js/sdk/server";
import { FAILURE_METADATA_KEY } from "@adaptor/a2a-client";
import { randomUUID } from "node:crypto";
import { ErrInvalidThreadKey, isError } from "adaptor";
import { taskFailure } from "./failure.js";

/** A text part. */
export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

/** A JSON data part. */
export function dataPart(value: unknown): Part {
  return { content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" };
}

/** A message from the agent on task `taskId`. */
export function agentMessage(taskId: string, contextId: string, parts: Part[], metadata?: Record<string, unknown>): Message {
  return { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts, metadata, extensions: [], referenceTaskIds: [] };
}

/** The text parts of a message, joined; data parts are ignored. */
export function messageText(message: Message | undefined): string {
  return partsText(message?.parts);
}

/** Text parts joined (an artifact's text); data parts are ignored. */
export function partsText(parts: readonly Part[] = []): string {
  return parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
}

/** The length of {@link partsText}, without joining the text (a pass over the parts, not the characters). */
export function partsTextLength(parts: readonly Part[] = []): number {
  let length = 0;
  for (const part of parts) if (part.content?.$case === "text") length += part.content.value.length;
  return length;
}

/** The first data part's value that is an object, else `undefined`. */
export function messageData(message: Message | undefined): Record<string, unknown> | undefined {
  for (const part of message?.parts ?? []) {
    const value = part.content?.$case === "data" ? (part.content.value as unknown) : undefined;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  }
  return undefined;
}

/** A status update of task `taskId` to `state`, stamped now, with the agent's `message`. */
export function statusUpdate(taskId: string, contextId: string, state: TaskState, message?: Message): AgentExecutionEvent {
  return AgentEvent.statusUpdate({
    taskId,
    contextId,
    status: { state, message, timestamp: new Date().toISOString() },
    metadata: undefined,
  });
}

/** The `rejected` update of a message the server will not run: a message without text, or a server shutting down. */
export function rejected(taskId: string, contextId: string, closing: boolean): AgentExecutionEvent {
  const why = closing ? "the agent is shutting down" : "the message has no text part";
  return statusUpdate(taskId, contextId, TaskState.TASK_STATE_REJECTED, agentMessage(taskId, contextId, [textPart(why)]));
}

/**
 * The `failed` update of a task that could not start because the runner picker (or the fleet) threw
 * `error`: a thread key the SDK refuses is the client's `invalid_id` (not retryable, naming the rule
 * it breaks), anything else `error: internal error` (retryable; no detail of it leaves the host).
 */
export function failedToStart(taskId: string, contextId: string, error: unknown): AgentExecutionEvent {
  if (!isError(error, ErrInvalidThreadKey)) return failedWithError(taskId, contextId, "error: internal error", true);
  const failure = taskFailure(error);
  const message = agentMessage(taskId, contextId, [textPart(failure.message)], {
    [FAILURE_METADATA_KEY]: { code: failure.code, retryable: failure.retryable },
  });
  return statusUpdate(taskId, contextId, TaskState.TASK_STATE_FAILED, message);
}

/** The `failed` update of a task with failure code `error` and `text` (no detail of the cause leaves the host). */
export function failedWithError(taskId: string, contextId: string, text: string, retryable: boolean): AgentExecutionEvent {
  const message = agentMessage(taskId, contextId, [textPart(text)], { [FAILURE_METADATA_KEY]: { code: "error", retryable } });
  return statusUpdate(taskId, contextId, TaskState.TASK_STATE_FAILED, message);
}
