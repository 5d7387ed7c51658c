import { TaskState, type Message, type Task, type TaskArtifactUpdateEvent, type TaskStatusUpdateEvent } from "@a2a-js/sdk";

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
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/** True for the states a stream ends on: the four terminal ones and the two interrupted ones (`input-required`, `auth-required`). */
export function isFinalState(state: TaskState): boolean {
  return FINAL.has(state);
}

/** True for the two interrupted states, `input-required` and `auth-required`: the task waits for the client. */
export function isInterruptedState(state: TaskState): boolean {
  return state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED;
}

const NAMES: Readonly<Record<number, string>> = {
  [TaskState.TASK_STATE_UNSPECIFIED]: "unspecified",
  [TaskState.TASK_STATE_SUBMITTED]: "submitted",
  [TaskState.TASK_STATE_WORKING]: "working",
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth-required",
};

/** The state's short name: `"completed"`, `"failed"`, `"input-required"`, ...; `"unknown"` for others. */
export function taskStateName(state: TaskState): string {
  return NAMES[state] ?? "unknown";
}
