import type { McpServerConfig } from "@adaptor/driver";
import { processEnvHas, type CliProcess } from "@adaptor/driver/process";

/**
 * Set in the environment of every stdio server declared to an ACP agent, to the server's name: the
 * driver finds the server among the agent's processes by it ({@link stdioServersNotRunning}).
 */
export const MCP_SERVER_NAME_VAR = "ADAPTOR_MCP_SERVER";

/**
 * The declared stdio servers none of the agent's live processes is (by {@link MCP_SERVER_NAME_VAR}):
 * servers the agent never started (an agent may ignore `mcpServers`: Nanocoder 1.30.0 does), or
 * that ended. ACP reports no MCP server status; the agent's processes, read from `/proc` after its
 * turn ended, are what the host can rely on. Undefined where the agent's processes cannot be
 * listed (not Linux).
 */
export async function stdioServersNotRunning(
  child: Pick<CliProcess, "listDescendants">,
  servers: readonly McpServerConfig[],
): Promise<McpServerConfig[] | undefined> {
  const stdio = servers.filter((server) => server.transport === "stdio");
  if (stdio.length === 0) return [];
  const live = await child.listDescendants?.();
  if (live === undefined) return undefined;
  return stdio.filter((server) => !live.some((pid) => processEnvHas(pid, `${MCP_SERVER_NAME_VAR}=${server.name}`)));
}
