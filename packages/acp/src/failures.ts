import { ErrTransportUnsupported } from "@adaptor/mcp";
import type { DriverFailure } from "@adaptor/driver";
import { AdaptorError } from "@adaptor/errors";

/**
 * The failure of a run whose MCP server uses a transport the agent's `initialize` answer does not
 * offer (`mcpCapabilities`): `agent_error` whose cause matches `ErrMCPTransportUnsupported`.
 */
export function ErrMCPTransportUnsupportedFailure(agent: string, server: string, transport: string): DriverFailure {
  const message = `${agent} does not accept ${transport} MCP servers (its initialize answer offers no mcpCapabilities.${transport}); server ${JSON.stringify(server)} was not started`;
  return {
    reason: "agent_error",
    message,
    details: { mcpServer: server, transport },
    cause: new AdaptorError(message, { sentinel: ErrTransportUnsupported }),
  };
}
