import { writeFile } from "node:fs/promises";
import type { McpServerConfig } from "@adaptor/driver";

/**
 * Writes the run's MCP servers as Claude's `--mcp-config` JSON (`{ mcpServers: { name: {...} } }`)
 * to `path` with mode 0600, since entries may hold tokens. Returns `path`.
 */
export async function writeMcpConfig(path: string, servers: readonly McpServerConfig[]): Promise<string> {
  const mcpServers: Record<string, unknown> = {};
  for (const server of servers) {
    mcpServers[server.name] =
      server.transport === "stdio"
        ? { type: "stdio", command: server.command, args: [...(server.args ?? [])], env: { ...server.env } }
        : { type: server.transport, url: server.url, headers: { ...server.headers } };
  }
  await writeFile(path, JSON.stringify({ mcpServers }, null, 2), { mode: 0o600 });
  return path;
}
