import { join } from "node:path";
import type { ScriptRule } from "@adaptor/testkit";

/**
 * What the scripted model does with any task, decided from each request (never from a queue):
 * write NOTES.md with the task, then ask to run `rm -rf ./build`, then report what happened.
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
      reply: { text: "Notes are written. Now I would like to clear out the old build output.", toolUse: { name: "Bash", input: { command: "rm -rf ./build", description: "Remove the build folder" } } },
    },
    {
      name: "write notes",
      when: (view) => view.lastToolResult === undefined && view.lastUserText.trim() !== "",
      reply: (view) => ({
        text: "Let me start by writing down the task.",
        toolUse: { name: "Write", input: { file_path: join(projectDir, "NOTES.md"), content: `# Task\n\n${view.lastUserText.trim()}\n` } },
      }),
    },
  ];
}
