import { secretEnvValues } from "@adaptor/errors/internal";
import type { McpServerConfig } from "../spi/mcp-server.js";

/** Shortest header value counted as a secret: a shorter one (`1`, `true`) would redact ordinary text. */
const MIN_HEADER_VALUE_CHARS = 8;

/**
 * The credentials a CLI is handed at launch, for `spawnCli`'s `redactRaw`: the values of
 * `env`'s credential-named variables and of each stdio MCP server's (names containing `KEY`,
 * `TOKEN`, `SECRET`, `PASS`, `CREDENTIAL` or `AUTH`; at least 8 characters), and each value of
 * an HTTP or SSE MCP server's headers of at least 8 characters (a `Bearer …` or `Basic …` value
 * also as its bare token). Distinct, longest first (a value that holds another is replaced whole).
 * @param env the CLI's environment.
 * @param mcpServers the run's MCP servers; default none.
 */
export function launchSecrets(env: Readonly<Record<string, string | undefined>>, mcpServers: readonly McpServerConfig[] = []): string[] {
  const values = new Set(secretEnvValues(env));
  for (const server of mcpServers) {
    if (server.transport === "stdio") {
      for (const value of secretEnvValues(server.env ?? {})) values.add(value);
      continue;
    }
    for (const value of Object.values(server.headers ?? {})) {
      if (value.length < MIN_HEADER_VALUE_CHARS) continue;
      values.add(value);
      const bare = /^(?:Bearer|Basic)\s+(\S+)$/i.exec(value)?.[1];
      if (bare !== undefined && bare.length >= MIN_HEADER_VALUE_CHARS) values.add(bare);
    }
  }
  return [...values].sort((a, b) => b.length - a.length);
}
