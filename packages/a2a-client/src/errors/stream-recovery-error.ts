import { AdaptorError } from "@adaptor/errors";

/**
 * A task's event stream broke and could not be resumed by resubscribing to the task. `taskId` names
 * the task (its work may still be running on the remote agent: `client.getTask(taskId)` reads its
 * state later). Has no sentinel of its own: its `cause` is the disconnection, or the failure of the
 * last recovery attempt when there was one, and its identities are the cause's.
 */
export class StreamRecoveryError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.StreamRecoveryError");
  /** The remote task whose stream was lost. */
  readonly taskId: string;

  constructor(taskId: string, cause: unknown, attempts: number) {
    const causeText = cause instanceof Error ? `: ${cause.message}` : "";
    super(`a2a stream of task ${taskId} lost; not recovered after ${attempts} attempt(s)${causeText}`, { cause });
    this.taskId = taskId;
  }
}
