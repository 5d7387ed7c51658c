export { startAnthropicServer, type AnthropicServer, type AnthropicServerOptions, type LoggedRequest } from "./anthropic/server.js";
export type { RequestView, ToolResultView } from "./anthropic/request-view.js";
export { whenUserSays, whenToolResult, type ScriptRule } from "./anthropic/script-rule.js";
export type { Reply, TextReply, ToolUseReply, ErrorReply, ReplyTiming, ReplyUsage } from "./anthropic/reply.js";
export { directiveReply, WRITE_FILE_CONTENT } from "./anthropic/directives.js";
export { claudeTestEnv, type ClaudeTestEnv, type ClaudeTestEnvOptions } from "./claude-env/claude-test-env.js";
export { startOpenAIServer, type OpenAIServer, type OpenAIServerOptions, type ResponsesLoggedRequest } from "./openai/server.js";
export type { ResponsesRequestView, ToolOutputView } from "./openai/request-view.js";
export { whenPromptSays, whenToolOutput, type ResponsesScriptRule } from "./openai/script-rule.js";
export type {
  ResponsesReply,
  ResponsesTextReply,
  ResponsesFunctionCallReply,
  ResponsesCustomToolCallReply,
  ResponsesErrorReply,
  ResponsesReplyTiming,
  ResponsesReplyUsage,
} from "./openai/reply.js";
export { responsesDirectiveReply, addFilePatch, PATCH_FILE_CONTENT } from "./openai/directives.js";
export { codexTestEnv, codexConfigToml, type CodexTestEnv, type CodexTestEnvOptions } from "./codex-env/codex-test-env.js";
export { startGeminiServer, type GeminiServer, type GeminiServerOptions, type GeminiLoggedRequest } from "./gemini/server.js";
export type { GeminiRequestView, FunctionResponseView } from "./gemini/request-view.js";
export { whenGeminiPromptSays, whenFunctionResponse, type GeminiScriptRule } from "./gemini/script-rule.js";
export type {
  GeminiReply,
  GeminiTextReply,
  GeminiFunctionCallReply,
  GeminiErrorReply,
  GeminiReplyTiming,
  GeminiReplyUsage,
} from "./gemini/reply.js";
export { geminiDirectiveReply, GEMINI_WRITE_FILE_CONTENT } from "./gemini/directives.js";
export { geminiTestEnv, geminiSettings, type GeminiTestEnv, type GeminiTestEnvOptions } from "./gemini-env/gemini-test-env.js";
export {
  startChatCompletionsServer,
  whenChatUserSays,
  whenChatToolResult,
  type ChatCompletionsServer,
  type ChatCompletionsServerOptions,
  type ChatScriptRule,
  type ChatReply,
  type ChatRequestView,
  type ChatLoggedRequest,
} from "./chat/server.js";
export { refusedLocalPort } from "./http/refused-port.js";
export {
  terminateNextTransaction,
  type TerminableClient,
  type TerminablePool,
  type TerminatedConnection,
} from "./postgres/terminate-next-transaction.js";
