import { AdaptorError } from "@adaptor/errors";
import { ErrInvalidConfig, checkMcpSupport, resolveMcpServers, validateMcpServers } from "@adaptor/mcp";
import type { Preparation } from "./preparation.js";

/**
 * Pre-invocation step: validates the run's `mcpServers` declarations, checks them
 * against the driver's `capabilities.mcp.transports`, resolves bearer tokens (from the run's `env`,
 * else `process.env`), and appends the servers to the driver request (after any the SDK added
 * itself, such as the host-tool server). Nothing to do when the run declares no servers.
 *
 * @throws AdaptorError matching `ErrInvalidMCPConfig` (naming the server), `ErrMCPUnsupported`, or
 * `ErrMCPTransportUnsupported`; the driver is never started.
 */
export function prepareMcpServers(prep: Preparation): void {
  const declared = prep.options.mcpServers;
  if (declared === undefined || declared.length === 0) return;
  const servers = validateMcpServers(declared);
  const { type, capabilities } = prep.driver.descriptor;
  checkMcpSupport(servers, capabilities.mcp.transports, type);
  const taken = new Set((prep.request.mcpServers ?? []).map((server) => server.name));
  for (const server of servers) {
    if (taken.has(server.name)) {
      throw new AdaptorError(`MCP server ${JSON.stringify(server.name)}: duplicate name (reserved by the SDK)`, {
        sentinel: ErrInvalidConfig,
      });
    }
  }
  const resolved = resolveMcpServers(servers, prep.options.env);
  prep.request = { ...prep.request, mcpServers: [...(prep.request.mcpServers ?? []), ...resolved] };
}
