import type { Message, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import { TASK_STATE } from "./protocol-values.js";

/** One event of an {@link A2AClient} stream. `final` is true on the last event of the stream. */
export type A2AStreamEvent =
  | { readonly kind: "task"; readonly task: Task; readonly taskId: string; readonly state: TaskState; readonly final: boolean }
  | { readonly kind: "message"; readonly message: Message; readonly taskId: string | undefined; readonly final: true }
  | {
      readonly kind: "status-update";
      readonly update: TaskStatusUpdateEvent;
      readonly taskId: string;
      readonly state: TaskState;
      /** The text parts of the status message, joined (`""` when none). */
      readonly text: string;
      readonly final: boolean;
    }
  | {
      readonly kind: "artifact-update";
      readonly update: TaskArtifactUpdateEvent;
      readonly taskId: string;
      /** The text parts of the artifact chunk, joined. */
      readonly text: string;
      readonly final: false;
    }
  | {
      /** The connection dropped and the stream resubscribed to the task; the resumed events follow. */
      readonly kind: "recovered";
      readonly taskId: string;
      /** 1 for the first resubscription, then 2, 3, ... */
      readonly attempt: number;
      /** What broke the previous connection. */
      readonly cause: unknown;
      readonly final: false;
    };

const FINAL = new Set<TaskState>([
  TASK_STATE.COMPLETED,
  TASK_STATE.FAILED,
  TASK_STATE.CANCELED,
  TASK_STATE.REJECTED,
  TASK_STATE.INPUT_REQUIRED,
  TASK_STATE.AUTH_REQUIRED,
]);

/** True for the states a stream ends on: the four terminal ones and the two interrupted ones (`input-required`, `auth-required`). */
export function isFinalState(state: TaskState): boolean {
  return FINAL.has(state);
}

/** True for the two interrupted states, `input-required` and `auth-required`: the task waits for the client. */
export function isInterruptedState(state: TaskState): boolean {
  return state === TASK_STATE.INPUT_REQUIRED || state === TASK_STATE.AUTH_REQUIRED;
}

const NAMES: Readonly<Record<number, string>> = {
  [TASK_STATE.UNSPECIFIED]: "unspecified",
  [TASK_STATE.SUBMITTED]: "submitted",
  [TASK_STATE.WORKING]: "working",
  [TASK_STATE.COMPLETED]: "completed",
  [TASK_STATE.FAILED]: "failed",
  [TASK_STATE.CANCELED]: "canceled",
  [TASK_STATE.INPUT_REQUIRED]: "input-required",
  [TASK_STATE.REJECTED]: "rejected",
  [TASK_STATE.AUTH_REQUIRED]: "auth-required",
};

/** The state's short name: `"completed"`, `"failed"`, `"input-required"`, ...; `"unknown"` for others. */
export function taskStateName(state: TaskState): string {
  return NAMES[state] ?? "unknown";
}
