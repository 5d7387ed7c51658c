import type { GeminiReply } from "./reply.js";
import type { GeminiRequestView } from "./request-view.js";

/** Content the `WRITE_FILE` directive's `write_file` call writes. */
export const GEMINI_WRITE_FILE_CONTENT = "hello from fake gemini model\n";

function schemaProperties(schema: unknown): readonly string[] {
  const props = typeof schema === "object" && schema !== null ? (schema as Record<string, unknown>)["properties"] : undefined;
  return typeof props === "object" && props !== null ? Object.keys(props) : [];
}

/**
 * The built-in reply used when no rule matches (docs/testkit.md "Built-in directives"):
 * - a JSON helper call (`generateContent` with a response schema): the model router gets
 *   `{"reasoning":"scripted","model_choice":"flash"}`, a next-speaker check `{"next_speaker":"user"}`,
 *   anything else `{}`; other `generateContent` calls (titles, summaries) get `Scripted summary`;
 * - the last content is a function response → text `Done: <first 200 chars of its output>`;
 * - `HTTP_ERROR <code>` → that HTTP status with the message `scripted error <code>`;
 * - `WRITE_FILE <abs path>` → a `write_file` call `{ file_path, content: GEMINI_WRITE_FILE_CONTENT }`;
 * - `SHELL_CMD <cmd>` (to the end of the line) → a `run_shell_command` call `{ command }`;
 * - `JSON_REPLY <json>` (to the end of the line) → that text verbatim;
 * - anything else → `Fake reply. I saw N content(s), M user prompt(s); first user text: "<first 60 chars>"`,
 *   with a thought part first when the prompt holds `THINK`;
 * - `SLOW_MS <n>` additionally delays any of the above by n ms.
 */
export function geminiDirectiveReply(view: GeminiRequestView): GeminiReply {
  if (view.method === "generate") {
    if (view.responseSchema !== undefined) {
      const props = schemaProperties(view.responseSchema);
      if (props.includes("model_choice")) return { text: JSON.stringify({ reasoning: "scripted", model_choice: "flash" }) };
      if (props.includes("next_speaker")) return { text: JSON.stringify({ reasoning: "scripted", next_speaker: "user" }) };
      return { text: "{}" };
    }
    if (!view.lastFunctionResponse && !/HTTP_ERROR|SLOW_MS/.test(view.lastUserText)) return { text: "Scripted summary" };
  }
  const text = view.lastUserText;
  const slow = /SLOW_MS\s+(\d+)/.exec(text);
  const timing = slow?.[1] !== undefined ? { delayMs: Number(slow[1]) } : {};
  if (view.lastFunctionResponse) {
    return { text: `Done: ${view.lastFunctionResponse.output.replace(/\s+/g, " ").slice(0, 200)}`, ...timing };
  }
  const httpError = /HTTP_ERROR\s+(\d{3})/.exec(text);
  if (httpError?.[1] !== undefined) {
    const status = Number(httpError[1]);
    return { error: { status, message: `scripted error ${status}` }, ...timing };
  }
  const write = /WRITE_FILE[ \t]+(\S+)/.exec(text);
  if (write?.[1] !== undefined) {
    return { functionCall: { name: "write_file", args: { file_path: write[1], content: GEMINI_WRITE_FILE_CONTENT } }, ...timing };
  }
  const shell = /SHELL_CMD[ \t]+([^\n]+)/.exec(text);
  if (shell?.[1] !== undefined) return { functionCall: { name: "run_shell_command", args: { command: shell[1].trim() } }, ...timing };
  const json = /JSON_REPLY[ \t]+([^\n]+)/.exec(text);
  if (json?.[1] !== undefined) return { text: json[1].trim(), ...timing };
  return {
    text: `Fake reply. I saw ${view.contentCount} content(s), ${view.userTexts.length} user prompt(s); first user text: "${view.firstUserText.slice(0, 60)}"`,
    ...(text.includes("THINK") ? { thinking: `Thinking about: ${text.slice(0, 40)}` } : {}),
    ...timing,
  };
}
