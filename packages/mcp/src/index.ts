export { ErrInvalidConfig, ErrUnsupported, ErrTransportUnsupported } from "./errors/sentinels.js";
export { mcpStdio, mcpHttp, mcpSse, type McpStdioOptions, type McpRemoteOptions } from "./server/constructors.js";
export type {
  McpTransport,
  McpServerBase,
  McpStdioServer,
  McpRemoteServer,
  McpHttpServer,
  McpSseServer,
  McpServer,
  ResolvedMcpServer,
} from "./server/mcp-server.js";
export { validateMcpServers } from "./validate/validate-mcp-servers.js";
export { checkMcpSupport } from "./validate/check-mcp-support.js";
export { resolveMcpServers } from "./validate/resolve-mcp-servers.js";
export { startHostToolServer, HOST_TOOL_PATH, type HostToolServer, type HostToolServerOptions } from "./host-tools/host-tool-server.js";
export type {
  HostToolSpec,
  HostToolAnnotations,
  HostToolCall,
  HostToolReply,
  HostToolSession,
  HostToolGrant,
} from "./host-tools/host-tool-session.js";
