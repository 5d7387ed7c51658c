/** The tool result carried by the last message of a request. */
export interface ToolResultView {
  /** `tool_use_id` of the tool_result block. */
  readonly toolUseId: string;
  /** Name of the tool, from the matching `tool_use` of an earlier assistant message; `undefined` if none matches. */
  readonly toolName: string | undefined;
  /**
   * The result content: the string itself, or its text blocks joined with `"\n"`, with the
   * CLI's `<system-reminder>` sections removed and trimmed.
   */
  readonly content: string;
  /** The block's `is_error` flag (false when absent). */
  readonly isError: boolean;
}

/**
 * What scripted rules see of one Messages API request: the parts a test usually matches on,
 * already cleaned of the CLI's `<system-reminder>` noise.
 */
export interface RequestView {
  /** `model` of the request ("" when absent). */
  readonly model: string;
  /** True when the request asked for SSE (`"stream": true`). */
  readonly stream: boolean;
  /** System prompt text: the string itself, or its text blocks joined with `"\n"`. */
  readonly system: string;
  /** Number of messages in the request. */
  readonly messageCount: number;
  /**
   * Text of the last user message: its text blocks (tool_result blocks ignored, `<system-reminder>`
   * sections removed, empty blocks dropped) joined with `"\n"`. "" when the last user message
   * holds only tool results, so a rule on the prompt does not fire again for the follow-up request.
   */
  readonly lastUserText: string;
  /** Text of the first user message, cleaned like {@link RequestView.lastUserText}. */
  readonly firstUserText: string;
  /** The last tool_result block of the last message, when that message carries any. */
  readonly lastToolResult?: ToolResultView;
  /** Names of the tools offered, in request order. */
  readonly toolNames: readonly string[];
  /** The parsed request body, as sent. */
  readonly raw: unknown;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function blocksOf(content: unknown): Json[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

const SYSTEM_REMINDER = /<system-reminder>[\s\S]*?(<\/system-reminder>|$)/g;

/** Text blocks of a message content, cleaned of system reminders and joined with "\n". */
function userText(content: unknown): string {
  return blocksOf(content)
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => (block.text as string).replace(SYSTEM_REMINDER, "").trim())
    .filter((text) => text !== "")
    .join("\n");
}

/** Plain text of a string-or-blocks value (tool_result content, system prompt). */
function plainText(content: unknown): string {
  if (typeof content === "string") return content;
  return blocksOf(content)
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n");
}

function findToolName(messages: readonly Json[], toolUseId: string): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== "assistant") continue;
    for (const block of blocksOf(message.content)) {
      if (block.type === "tool_use" && block.id === toolUseId && typeof block.name === "string") return block.name;
    }
  }
  return undefined;
}

/**
 * Builds the {@link RequestView} of a parsed Messages API request body. Never throws: a body
 * that is not a Messages request gives an empty view (no messages, model "").
 */
export function buildRequestView(body: unknown): RequestView {
  const request = isObject(body) ? body : {};
  const messages = Array.isArray(request.messages) ? request.messages.filter(isObject) : [];
  const userMessages = messages.filter((message) => message.role === "user");
  // The CLI may append `role: "system"` messages (plan-mode notes) after the user turn; the
  // conversation's last turn is the last non-system message.
  const last = messages.filter((message) => message.role !== "system").at(-1);
  const toolNames = (Array.isArray(request.tools) ? request.tools.filter(isObject) : [])
    .map((tool) => tool.name)
    .filter((name): name is string => typeof name === "string");

  let lastToolResult: ToolResultView | undefined;
  if (last?.role === "user") {
    const result = blocksOf(last.content)
      .filter((block) => block.type === "tool_result")
      .at(-1);
    if (result) {
      const toolUseId = typeof result.tool_use_id === "string" ? result.tool_use_id : "";
      lastToolResult = {
        toolUseId,
        toolName: findToolName(messages, toolUseId),
        content: plainText(result.content).replace(SYSTEM_REMINDER, "").trim(),
        isError: result.is_error === true,
      };
    }
  }

  return {
    model: typeof request.model === "string" ? request.model : "",
    stream: request.stream === true,
    system: plainText(request.system),
    messageCount: messages.length,
    lastUserText: userText(userMessages.at(-1)?.content),
    firstUserText: userText(userMessages[0]?.content),
    ...(lastToolResult ? { lastToolResult } : {}),
    toolNames,
    raw: body,
  };
}
