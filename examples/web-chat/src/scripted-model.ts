import { join } from "node:path";
import type { RequestView, ScriptRule } from "@adaptor/testkit";

/**
 * The task's working directory: the first `<projectDir>/task-<suffix>` path the request names
 * (Claude Code puts its working directory in what it sends), else `projectDir`.
 */
function taskDirectory(view: RequestView, projectDir: string): string {
  const escaped = projectDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const named = new RegExp(`${escaped}/task-[A-Za-z0-9]+`).exec(JSON.stringify(view.raw))?.[0];
  return named ?? projectDir;
}

/**
 * What the scripted model does with any task, decided from each request (never from a queue):
 * write NOTES.md with the task into the task's own folder under `projectDir` (the working
 * directory the CLI names in its request), then ask to run `rm -rf ./build`, then report what
 * happened.
 */
export function webChatScript(projectDir: string): ScriptRule[] {
  return [
    {
      name: "report",
      when: (view) => view.lastToolResult?.toolName === "Bash",
      reply: (view) => ({
        text: view.lastToolResult?.isError
          ? "I wrote NOTES.md with your task. You declined `rm -rf ./build`, so the build folder is untouched."
          : "I wrote NOTES.md with your task and removed the build folder.",
      }),
    },
    {
      name: "clean the build",
      when: (view) => view.lastToolResult?.toolName === "Write",
      reply: {
        text: "Notes are written. Now I would like to clear out the old build output.",
        toolUse: { name: "Bash", input: { command: "rm -rf ./build", description: "Remove the build folder" } },
      },
    },
    {
      name: "write notes",
      when: (view) => view.lastToolResult === undefined && view.lastUserText.trim() !== "",
      reply: (view) => ({
        text: "Let me start by writing down the task.",
        toolUse: {
          name: "Write",
          input: { file_path: join(taskDirectory(view, projectDir), "NOTES.md"), content: `# Task\n\n${view.lastUserText.trim()}\n` },
        },
      }),
    },
  ];
}
