/** The tool output carried by the last input item of a request (a follow-up after a tool call). */
export interface ToolOutputView {
  /** `call_id` of the output item. */
  readonly callId: string;
  /** Name of the tool, from the matching `function_call` / `custom_tool_call` item; `undefined` if none matches. */
  readonly toolName: string | undefined;
  /** `"function"` for `function_call_output`, `"custom"` for `custom_tool_call_output`. */
  readonly kind: "function" | "custom";
  /** The output text: the string itself, or the text parts joined with `"\n"`; trimmed. */
  readonly output: string;
}

/**
 * What scripted rules see of one Responses API request (`POST /v1/responses`), the parts a test
 * usually matches on. User messages that only carry the CLI's context (codex sends its
 * `<environment_context>` and AGENTS.md instructions as user messages) are left out of the texts.
 */
export interface ResponsesRequestView {
  /** `model` of the request ("" when absent). */
  readonly model: string;
  /** True when the request asked for SSE (`"stream": true`). */
  readonly stream: boolean;
  /** `instructions` text ("" when absent). */
  readonly instructions: string;
  /** Number of `input` items of any type (messages, calls, outputs, reasoning). */
  readonly inputCount: number;
  /** Number of `message` input items (any role). */
  readonly messageCount: number;
  /** Number of `user` messages that carry a prompt (context messages not counted). */
  readonly userMessageCount: number;
  /**
   * Text of the last user prompt when nothing but assistant output follows it, i.e. the request
   * answers the user; "" when a tool output came after it, so a rule on the prompt does not fire
   * again for the follow-up request.
   */
  readonly lastUserText: string;
  /** Text of the first user prompt ("" when none). */
  readonly firstUserText: string;
  /** Every user prompt text, in order. */
  readonly userTexts: readonly string[];
  /** The tool output, when the last input item is a `function_call_output` or `custom_tool_call_output`. */
  readonly lastToolOutput?: ToolOutputView;
  /** Names of the tools offered, in request order (a tool without a name by its `type`, e.g. `"web_search"`). */
  readonly toolNames: readonly string[];
  /** The JSON Schema of `text.format` when it is `json_schema` (structured output), else `undefined`. */
  readonly outputSchema?: unknown;
  /** The parsed request body, as sent. */
  readonly raw: unknown;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Context blocks codex sends as user messages; they are not prompts. */
const CONTEXT_MESSAGE =
  /^\s*(<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS\.md instructions|<skills_instructions>|<turn_aborted>|<user_shell_command>)/;

function partsText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(isObject)
    .filter((part) => typeof part.text === "string")
    .map((part) => part.text as string)
    .join("\n");
}

function promptText(item: Json): string | undefined {
  if (item.type !== "message" && item.type !== undefined) return undefined;
  if (item.role !== "user") return undefined;
  const text = partsText(item.content).trim();
  if (text === "" || CONTEXT_MESSAGE.test(text)) return undefined;
  return text;
}

function isToolOutput(item: Json): boolean {
  return item.type === "function_call_output" || item.type === "custom_tool_call_output";
}

/**
 * Builds the {@link ResponsesRequestView} of a parsed Responses API request body. Never throws: a
 * body that is not a Responses request gives an empty view.
 */
export function buildResponsesRequestView(body: unknown): ResponsesRequestView {
  const request = isObject(body) ? body : {};
  const input: Json[] =
    typeof request.input === "string"
      ? [{ type: "message", role: "user", content: request.input }]
      : Array.isArray(request.input)
        ? request.input.filter(isObject)
        : [];
  const userTexts: string[] = [];
  for (const item of input) {
    const text = promptText(item);
    if (text !== undefined) userTexts.push(text);
  }

  let lastUserText = "";
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i] as Json;
    if (isToolOutput(item)) break;
    const text = promptText(item);
    if (text !== undefined) {
      lastUserText = text;
      break;
    }
  }

  let lastToolOutput: ToolOutputView | undefined;
  const last = input.at(-1);
  if (last && isToolOutput(last)) {
    const callId = typeof last.call_id === "string" ? last.call_id : "";
    const call = input.find((item) => (item.type === "function_call" || item.type === "custom_tool_call") && item.call_id === callId);
    const output = last.output;
    lastToolOutput = {
      callId,
      toolName: typeof call?.name === "string" ? call.name : undefined,
      kind: last.type === "function_call_output" ? "function" : "custom",
      output: (typeof output === "string"
        ? output
        : isObject(output)
          ? partsText(output.content ?? output.body)
          : partsText(output)
      ).trim(),
    };
  }

  const toolNames = (Array.isArray(request.tools) ? request.tools.filter(isObject) : [])
    .map((tool) => (typeof tool.name === "string" ? tool.name : typeof tool.type === "string" ? tool.type : ""))
    .filter((name) => name !== "");

  const format = isObject(request.text) && isObject(request.text.format) ? request.text.format : undefined;
  const outputSchema = format?.type === "json_schema" ? format.schema : undefined;

  return {
    model: typeof request.model === "string" ? request.model : "",
    stream: request.stream === true,
    instructions: typeof request.instructions === "string" ? request.instructions : "",
    inputCount: input.length,
    messageCount: input.filter((item) => item.type === "message" || (item.type === undefined && typeof item.role === "string")).length,
    userMessageCount: userTexts.length,
    lastUserText,
    firstUserText: userTexts[0] ?? "",
    userTexts,
    ...(lastToolOutput ? { lastToolOutput } : {}),
    toolNames,
    ...(outputSchema !== undefined ? { outputSchema } : {}),
    raw: body,
  };
}
