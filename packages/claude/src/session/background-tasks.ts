/**
 * Keeps `tasks` (the ids of the CLI's background tasks still running) up to date from one stdout
 * line, as the CLI itself counts them: `task_started` adds a task unless it says
 * `is_backgrounded: false` (a foreground task: a Bash command or a subagent the call waits for);
 * `task_updated` adds one its patch moves to the background (`is_backgrounded: true`, e.g. a
 * foreground subagent the CLI backgrounds after a while) and removes one it ends
 * (`status` `completed`, `failed` or `killed`); `task_notification` removes it.
 */
export function trackBackgroundTask(tasks: Set<string>, message: Record<string, unknown>): void {
  if (message.type !== "system" || typeof message.task_id !== "string") return;
  switch (message.subtype) {
    case "task_started":
      if (message.is_backgrounded !== false) tasks.add(message.task_id);
      return;
    case "task_updated": {
      const patch = (typeof message.patch === "object" && message.patch !== null ? message.patch : {}) as Record<string, unknown>;
      if (patch.status === "completed" || patch.status === "failed" || patch.status === "killed") tasks.delete(message.task_id);
      else if (patch.is_backgrounded === true) tasks.add(message.task_id);
      return;
    }
    case "task_notification":
      tasks.delete(message.task_id);
      return;
  }
}
