export {
  startAnthropicServer,
  type AnthropicServer,
  type AnthropicServerOptions,
  type LoggedRequest,
} from "./anthropic/server.js";
export type { RequestView, ToolResultView } from "./anthropic/request-view.js";
export { whenUserSays, whenToolResult, type ScriptRule } from "./anthropic/script-rule.js";
export type { Reply, TextReply, ToolUseReply, ErrorReply, ReplyTiming, ReplyUsage } from "./anthropic/reply.js";
export { directiveReply, WRITE_FILE_CONTENT } from "./anthropic/directives.js";
export { claudeTestEnv, type ClaudeTestEnv, type ClaudeTestEnvOptions } from "./claude-env/claude-test-env.js";
