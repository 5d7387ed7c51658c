import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import type { Task } from "@a2a-js/sdk";

/**
 * `store`, telling `onSaved` each task once a write of it has completed: the server
 * learns that the events it published before were handled, and sends the text that arrived
 * meanwhile as one chunk (see `TaskRun`). Writes and reads pass through unchanged.
 */
export function recordingStore(store: TaskStore, onSaved: (task: Task) => void): TaskStore {
  return {
    async save(task: Task, context: ServerCallContext): Promise<void> {
      await store.save(task, context);
      onSaved(task);
    },
    load: (taskId, context) => store.load(taskId, context),
    list: (params, context) => store.list(params, context),
  };
}
