import type { ResponsesReply } from "./reply.js";
import type { ResponsesRequestView } from "./request-view.js";

/** Content the `PATCH_FILE` directive's patch adds. */
export const PATCH_FILE_CONTENT = "hello from fake codex model\n";

/** The `apply_patch` envelope that adds `path` with `content` (one `+` line per line). */
export function addFilePatch(path: string, content: string = PATCH_FILE_CONTENT): string {
  const lines = content
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => `+${line}`);
  return ["*** Begin Patch", `*** Add File: ${path}`, ...lines, "*** End Patch", ""].join("\n");
}

/**
 * The built-in reply used when no rule matches, driven by directives in the last user prompt
 * (docs/testkit.md "Built-in directives"):
 * - the last input item is a tool output → text `Done: <first 200 chars of the output, whitespace collapsed>`;
 * - `HTTP_ERROR <code>` → that HTTP status with the message `scripted error <code>`;
 * - `SHELL_CMD <cmd>` (to the end of the line) → a `function_call` of `exec_command` with `{ "cmd": cmd }`;
 * - `PATCH_FILE <relative path>` → a `custom_tool_call` of `apply_patch` adding the file with {@link PATCH_FILE_CONTENT};
 * - `JSON_REPLY <json>` (to the end of the line) → that text verbatim (for structured output);
 * - anything else → `Fake reply. I saw N input item(s), M user message(s); first user text: "<first 60 chars>"`,
 *   with a reasoning summary first when the prompt holds `THINK`;
 * - `SLOW_MS <n>` additionally delays any of the above by n ms.
 */
export function responsesDirectiveReply(view: ResponsesRequestView): ResponsesReply {
  const text = view.lastUserText;
  const slow = /SLOW_MS\s+(\d+)/.exec(text);
  const timing = slow?.[1] !== undefined ? { delayMs: Number(slow[1]) } : {};

  if (view.lastToolOutput) {
    return { text: `Done: ${view.lastToolOutput.output.replace(/\s+/g, " ").slice(0, 200)}`, ...timing };
  }
  const httpError = /HTTP_ERROR\s+(\d{3})/.exec(text);
  if (httpError?.[1] !== undefined) {
    const status = Number(httpError[1]);
    return { error: { status, message: `scripted error ${status}` }, ...timing };
  }
  const shell = /SHELL_CMD[ \t]+([^\n]+)/.exec(text);
  if (shell?.[1] !== undefined) {
    return { functionCall: { name: "exec_command", arguments: { cmd: shell[1].trim() } }, ...timing };
  }
  const patch = /PATCH_FILE[ \t]+(\S+)/.exec(text);
  if (patch?.[1] !== undefined) {
    return { customToolCall: { name: "apply_patch", input: addFilePatch(patch[1]) }, ...timing };
  }
  const json = /JSON_REPLY[ \t]+([^\n]+)/.exec(text);
  if (json?.[1] !== undefined) return { text: json[1].trim(), ...timing };
  return {
    text: `Fake reply. I saw ${view.inputCount} input item(s), ${view.userMessageCount} user message(s); first user text: "${view.firstUserText.slice(0, 60)}"`,
    ...(text.includes("THINK") ? { reasoning: `Thinking about: ${text.slice(0, 40)}` } : {}),
    ...timing,
  };
}
