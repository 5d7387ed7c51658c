import { join } from "node:path";
import { whenToolResult, whenUserSays, type ScriptRule } from "@adaptor/testkit";

/**
 * What the scripted model does, decided from each request (never from a queue): read the code,
 * fix it with Edit, run the tests with Bash, then report.
 */
export function fixTheTestScript(projectDir: string): ScriptRule[] {
  const file = join(projectDir, "math.js");
  return [
    {
      name: "read the code",
      when: whenUserSays("failing test"),
      reply: { text: "Let me look at the code.", toolUse: { name: "Read", input: { file_path: file } } },
    },
    {
      name: "fix the bug",
      when: whenToolResult("Read", "a - b"),
      reply: {
        text: "`add` subtracts; fixing it.",
        toolUse: { name: "Edit", input: { file_path: file, old_string: "return a - b;", new_string: "return a + b;" } },
      },
    },
    {
      name: "run the tests",
      when: whenToolResult("Edit"),
      reply: { text: "Now the tests.", toolUse: { name: "Bash", input: { command: "node --test", description: "Run the tests" } } },
    },
    {
      name: "report",
      when: whenToolResult("Bash"),
      reply: (view) => ({
        text: /# fail 0/.test(view.lastToolResult?.content ?? "")
          ? "Fixed: `add` now returns a + b, and `node --test` passes."
          : "The tests still fail:\n" + (view.lastToolResult?.content ?? ""),
      }),
    },
  ];
}
