/** The function response carried by the last content of a request (a follow-up after a tool call). */
export interface FunctionResponseView {
  /** Name of the function that answered, e.g. `"write_file"`. */
  readonly name: string;
  /** The response object as sent. */
  readonly response: unknown;
  /** Its text: `response.output`, else `response.error`, else the response's JSON; trimmed. */
  readonly output: string;
  /** True when the response carries an `error` field (a failed or refused call). */
  readonly isError: boolean;
}

/**
 * What scripted rules see of one Gemini API request. User texts leave out the CLI's own context
 * blocks (gemini-cli sends its `<session_context>` as the first user content).
 */
export interface GeminiRequestView {
  /** The model named in the URL path, e.g. `"gemini-2.5-flash"`. */
  readonly model: string;
  /** `"stream"` for `:streamGenerateContent`, `"generate"` for `:generateContent`. */
  readonly method: "stream" | "generate";
  /** The system instruction text ("" when absent). */
  readonly system: string;
  /** Number of `contents` entries. */
  readonly contentCount: number;
  /**
   * Text of the last user content when it is a prompt (not a function response): the request
   * answers the user. "" when a function response is last, so a prompt rule does not fire again.
   */
  readonly lastUserText: string;
  /** Text of the first user prompt ("" when none). */
  readonly firstUserText: string;
  /** Every user prompt text, in order. */
  readonly userTexts: readonly string[];
  /** The function response, when the last content carries one. */
  readonly lastFunctionResponse?: FunctionResponseView;
  /** Names of the functions offered, in request order. */
  readonly toolNames: readonly string[];
  /** `generationConfig.responseJsonSchema` (or `responseSchema`), when the request asks for JSON. */
  readonly responseSchema?: unknown;
  /** The parsed request body, as sent. */
  readonly raw: unknown;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const CONTEXT_TEXT = /^\s*<session_context>/;

function partsOf(content: unknown): Json[] {
  if (!isObject(content) || !Array.isArray(content["parts"])) return [];
  return content["parts"].filter(isObject);
}

function promptText(content: unknown): string | undefined {
  const texts = partsOf(content)
    .map((part) => part["text"])
    .filter((text): text is string => typeof text === "string" && !CONTEXT_TEXT.test(text));
  return texts.length === 0 ? undefined : texts.join("\n");
}

function functionResponse(content: unknown): FunctionResponseView | undefined {
  for (const part of partsOf(content)) {
    const fr = part["functionResponse"];
    if (!isObject(fr)) continue;
    const response = fr["response"];
    const r = isObject(response) ? response : {};
    const raw = r["output"] ?? r["error"] ?? response;
    const output = (typeof raw === "string" ? raw : JSON.stringify(raw ?? null)).trim();
    return { name: typeof fr["name"] === "string" ? fr["name"] : "", response, output, isError: "error" in r };
  }
  return undefined;
}

/** Builds the {@link GeminiRequestView} of a request to `model` (`body` is the parsed JSON). */
export function buildGeminiRequestView(model: string, method: "stream" | "generate", body: unknown): GeminiRequestView {
  const b = isObject(body) ? body : {};
  const contents = Array.isArray(b["contents"]) ? b["contents"] : [];
  const userTexts: string[] = [];
  for (const content of contents) {
    if (isObject(content) && content["role"] === "user") {
      const text = promptText(content);
      if (text !== undefined) userTexts.push(text);
    }
  }
  const last = contents.at(-1);
  const lastFunctionResponse = functionResponse(last);
  const lastText = isObject(last) && last["role"] === "user" && !lastFunctionResponse ? (promptText(last) ?? "") : "";
  const toolNames: string[] = [];
  for (const tool of Array.isArray(b["tools"]) ? b["tools"] : []) {
    const decls = isObject(tool) ? tool["functionDeclarations"] : undefined;
    for (const decl of Array.isArray(decls) ? decls : [])
      if (isObject(decl) && typeof decl["name"] === "string") toolNames.push(decl["name"]);
  }
  const system = partsOf(b["systemInstruction"])
    .map((part) => part["text"])
    .filter((text): text is string => typeof text === "string")
    .join("\n");
  const config = isObject(b["generationConfig"]) ? b["generationConfig"] : {};
  const responseSchema = config["responseJsonSchema"] ?? config["responseSchema"];
  return {
    model,
    method,
    system,
    contentCount: contents.length,
    lastUserText: lastText,
    firstUserText: userTexts[0] ?? "",
    userTexts,
    ...(lastFunctionResponse ? { lastFunctionResponse } : {}),
    toolNames,
    ...(responseSchema !== undefined ? { responseSchema } : {}),
    raw: body,
  };
}
