import type { Reply } from "./reply.js";
import type { RequestView } from "./request-view.js";

/** Content the `WRITE_FILE` directive writes. */
export const WRITE_FILE_CONTENT = "hello from fake model\n";

/**
 * The built-in reply used when no rule matches, driven by directives in the request
 * (docs/testkit.md "Built-in directives"):
 * - the last message is a tool result → text `Done: <first 200 chars of the result>`;
 * - `HTTP_ERROR <code>` in the last user text → that HTTP status with an Anthropic error body;
 * - `WRITE_FILE <abs path>` → a `Write` tool_use `{ file_path, content: WRITE_FILE_CONTENT }`;
 * - `SHELL_CMD <cmd>` (to the end of the line) → a `Bash` tool_use `{ command, description }`;
 * - anything else → `Fake reply. I saw N message(s); first user text: "<first 60 chars>"`;
 * - `SLOW_MS <n>` anywhere in the last user text additionally delays any of the above by n ms.
 *
 * Note: after an interrupt the claude CLI merges the interrupted prompt into the next user message
 * (`"<old>\n[Request interrupted by user]\n<new>"`), so `SLOW_MS` delays that follow-up too; an
 * interrupt test that wants a fast follow-up should use a rule matching the exact prompt instead.
 */
export function directiveReply(view: RequestView): Reply {
  const text = view.lastUserText;
  const slow = /SLOW_MS\s+(\d+)/.exec(text);
  const timing = slow?.[1] !== undefined ? { delayMs: Number(slow[1]) } : {};

  if (view.lastToolResult) {
    return { text: `Done: ${view.lastToolResult.content.slice(0, 200)}`, ...timing };
  }
  const httpError = /HTTP_ERROR\s+(\d{3})/.exec(text);
  if (httpError?.[1] !== undefined) {
    const status = Number(httpError[1]);
    return { error: { status, message: `Scripted HTTP_ERROR ${status} from the fake Anthropic server` }, ...timing };
  }
  const writeFile = /WRITE_FILE\s+(\/\S+)/.exec(text);
  if (writeFile?.[1] !== undefined) {
    return { toolUse: { name: "Write", input: { file_path: writeFile[1], content: WRITE_FILE_CONTENT } }, ...timing };
  }
  const shell = /SHELL_CMD[ \t]+([^\n]+)/.exec(text);
  if (shell?.[1] !== undefined) {
    const command = shell[1].trim();
    return { toolUse: { name: "Bash", input: { command, description: `Run ${command}` } }, ...timing };
  }
  return {
    text: `Fake reply. I saw ${view.messageCount} message(s); first user text: "${view.firstUserText.slice(0, 60)}"`,
    ...timing,
  };
}
