import { writeFile } from "node:fs/promises";
import type { McpServerConfig } from "@adaptor/driver";
import { STDIO_SERVER_VAR, isolateStdioServer } from "@adaptor/driver/process";

/**
 * Writes the run's MCP servers as Claude's `--mcp-config` JSON (`{ mcpServers: { name: {...} } }`)
 * to `path` with mode 0600, since entries may hold tokens. Returns `path`. A stdio server is
 * started with its declared `env` plus a safe base of `cliEnv` (or what its `inheritEnv` asks for),
 * never the rest of the CLI's environment, and marked with `ADAPTOR_STDIO_SERVER=1` (it lives as long
 * as the CLI: what a turn leaves running is ended at the turn's end, the servers are not).
 */
export async function writeMcpConfig(
  path: string,
  servers: readonly McpServerConfig[],
  cliEnv: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  const mcpServers: Record<string, unknown> = {};
  for (const server of servers) {
    mcpServers[server.name] =
      server.transport === "stdio"
        ? { type: "stdio", ...isolateStdioServer(server, cliEnv), env: { ...server.env, [STDIO_SERVER_VAR]: "1" } }
        : { type: server.transport, url: server.url, headers: { ...server.headers } };
  }
  await writeFile(path, JSON.stringify({ mcpServers }, null, 2), { mode: 0o600 });
  return path;
}
