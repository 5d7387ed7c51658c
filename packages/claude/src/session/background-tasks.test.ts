import { describe, expect, it } from "vitest";
import { trackBackgroundTask } from "./background-tasks.js";

const system = (subtype: string, fields: Record<string, unknown>) => ({ type: "system", subtype, ...fields });

describe("trackBackgroundTask", () => {
  it("counts a task started in the background, or without saying, and not one started in the foreground", () => {
    const tasks = new Set<string>();
    trackBackgroundTask(tasks, system("task_started", { task_id: "bash1", task_type: "local_bash", is_backgrounded: true }));
    trackBackgroundTask(tasks, system("task_started", { task_id: "other", task_type: "mcp_task" }));
    trackBackgroundTask(tasks, system("task_started", { task_id: "agent1", task_type: "local_agent", is_backgrounded: false }));
    expect([...tasks]).toEqual(["bash1", "other"]);
  });

  it("counts a foreground task the CLI moves to the background, until it ends", () => {
    const tasks = new Set<string>();
    trackBackgroundTask(tasks, system("task_started", { task_id: "agent1", task_type: "local_agent", is_backgrounded: false }));
    trackBackgroundTask(tasks, system("task_updated", { task_id: "agent1", patch: { is_backgrounded: true } }));
    expect([...tasks]).toEqual(["agent1"]);
    trackBackgroundTask(tasks, system("task_updated", { task_id: "agent1", patch: { status: "completed", end_time: 1 } }));
    expect(tasks.size).toBe(0);
  });

  it("forgets a task at its notification", () => {
    const tasks = new Set<string>();
    trackBackgroundTask(tasks, system("task_started", { task_id: "bash1", is_backgrounded: true }));
    trackBackgroundTask(tasks, system("task_notification", { task_id: "bash1", status: "completed" }));
    trackBackgroundTask(tasks, { type: "user", task_id: "bash1" });
    expect(tasks.size).toBe(0);
  });
});
