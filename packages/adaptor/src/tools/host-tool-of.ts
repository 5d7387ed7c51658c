import { mcpToolOf, type McpServerTools } from "@adaptor/driver/kit";

/**
 * The own name of the host tool that `name`, an agent's name for a call, refers to, in every form
 * agents give an MCP tool (`mcp__<server>__<tool>`, `mcp_<server>_<tool>`, `Tool: <server>/<tool>`:
 * a driver's event name may be the call's title, as for an ACP call without a name); `undefined`
 * for any other tool.
 * @param server - the run's host-tool server: its name in the run's `mcpServers` and its tools' names.
 */
export function hostToolOf(name: string | undefined, server: McpServerTools): string | undefined {
  return name === undefined ? undefined : mcpToolOf({ name, title: name }, [server])?.tool;
}
