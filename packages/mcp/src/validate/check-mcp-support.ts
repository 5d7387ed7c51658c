import { AdaptorError } from "@adaptor/errors";
import { ErrTransportUnsupported, ErrUnsupported } from "../errors/sentinels.js";
import type { McpServer, McpTransport } from "../server/mcp-server.js";

/**
 * Checks declared servers against what a driver supports (its descriptor's
 * `capabilities.mcp.transports`), before launch. No servers always passes.
 *
 * @param driver - the driver's type, for messages (e.g. `"claude"`).
 * @throws AdaptorError matching `ErrUnsupported` (root `ErrMCPUnsupported`) when `transports` is
 * empty; matching `ErrTransportUnsupported` (root `ErrMCPTransportUnsupported`) naming the first
 * server whose transport is not listed.
 */
export function checkMcpSupport(servers: readonly McpServer[], transports: readonly McpTransport[], driver: string): void {
  if (servers.length === 0) return;
  if (transports.length === 0) {
    throw new AdaptorError(`driver ${driver} does not support MCP servers (declared: ${servers.map((s) => s.name).join(", ")})`, {
      sentinel: ErrUnsupported,
    });
  }
  for (const server of servers) {
    if (!transports.includes(server.transport)) {
      throw new AdaptorError(
        `MCP server ${JSON.stringify(server.name)}: driver ${driver} does not support transport ${server.transport} (supported: ${transports.join(", ")})`,
        { sentinel: ErrTransportUnsupported },
      );
    }
  }
}
