import { AdaptorError } from "@adaptor/errors";
import { ErrInvalidConfig } from "../errors/sentinels.js";
import type { McpServer, ResolvedMcpServer } from "../server/mcp-server.js";

/**
 * Turns validated declarations into what drivers receive: `bearerTokenEnv` becomes an
 * `Authorization: Bearer <token>` header (an explicit `Authorization` header wins), undefined
 * optional fields are dropped, `required` is kept only when true.
 *
 * @param env - where bearer tokens are read first; then `process.env`.
 * @throws AdaptorError matching `ErrInvalidConfig` naming the server when its `bearerTokenEnv` is
 * unset or empty in both.
 */
export function resolveMcpServers(
  servers: readonly McpServer[],
  env: Readonly<Record<string, string | undefined>> = {},
): readonly ResolvedMcpServer[] {
  return servers.map((server): ResolvedMcpServer => {
    const required = server.required === true ? { required: true } : {};
    if (server.transport === "stdio") {
      return {
        name: server.name,
        transport: "stdio",
        command: server.command,
        ...(server.args ? { args: [...server.args] } : {}),
        ...(server.env ? { env: { ...server.env } } : {}),
        ...(server.inheritEnv !== undefined
          ? { inheritEnv: typeof server.inheritEnv === "boolean" ? server.inheritEnv : [...server.inheritEnv] }
          : {}),
        ...required,
      };
    }
    let headers = server.headers ? { ...server.headers } : undefined;
    if (server.bearerTokenEnv) {
      const token = env[server.bearerTokenEnv] ?? process.env[server.bearerTokenEnv];
      if (!token) {
        throw new AdaptorError(`MCP server ${JSON.stringify(server.name)}: bearer token variable ${server.bearerTokenEnv} is not set`, {
          sentinel: ErrInvalidConfig,
        });
      }
      const hasAuthorization = Object.keys(headers ?? {}).some((key) => key.toLowerCase() === "authorization");
      if (!hasAuthorization) headers = { ...headers, Authorization: `Bearer ${token}` };
    }
    return { name: server.name, transport: server.transport, url: server.url, ...(headers ? { headers } : {}), ...required };
  });
}
