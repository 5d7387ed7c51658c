import { secretEnvValues } from "@adaptor/errors/internal";
import type { McpServerConfig } from "../spi/mcp-server.js";

/** Shortest header value counted as a secret: a shorter one (`1`, `true`) would redact ordinary text. */
const MIN_HEADER_VALUE_CHARS = 8;

/**
 * The credentials a CLI is handed at launch, for `spawnCli`'s `redactRaw`: the values of
 * `env`'s credential-named variables and of each stdio MCP server's (names containing `KEY`,
 * `TOKEN`, `SECRET`, `PASS`, `CREDENTIAL` or `AUTH`; at least 8 characters), a stdio server's
 * credential-named options among its `args` (`--api-key=…`, `--token …`), each value of an HTTP or
 * SSE MCP server's headers of at least 8 characters (a `Bearer …` or `Basic …` value also as its
 * bare token), and its URL's credential-named query values and password. Distinct, longest first
 * (a value that holds another is replaced whole).
 * @param env the CLI's environment.
 * @param mcpServers the run's MCP servers; default none.
 */
export function launchSecrets(env: Readonly<Record<string, string | undefined>>, mcpServers: readonly McpServerConfig[] = []): string[] {
  const values = new Set(secretEnvValues(env));
  for (const server of mcpServers) {
    if (server.transport === "stdio") {
      for (const value of secretEnvValues(server.env ?? {})) values.add(value);
      for (const value of secretEnvValues(argOptions(server.args ?? []))) values.add(value);
      continue;
    }
    for (const value of secretEnvValues(urlCredentials(server.url))) values.add(value);
    for (const value of Object.values(server.headers ?? {})) {
      if (value.length < MIN_HEADER_VALUE_CHARS) continue;
      values.add(value);
      const bare = /^(?:Bearer|Basic)\s+(\S+)$/i.exec(value)?.[1];
      if (bare !== undefined && bare.length >= MIN_HEADER_VALUE_CHARS) values.add(bare);
    }
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** A server's `--name=value` and `--name value` options, by name (for the credential-name check). */
function argOptions(args: readonly string[]): Record<string, string> {
  const options: Record<string, string> = {};
  args.forEach((arg, i) => {
    const option = /^--?([^=\s]+)(?:=(.*))?$/s.exec(arg);
    if (!option) return;
    const value = option[2] ?? args[i + 1];
    if (value !== undefined && !value.startsWith("-")) options[option[1]!] = value;
  });
  return options;
}

/** A URL's query values by name, and its password (as `password`); none for a URL that does not parse. */
function urlCredentials(url: string): Record<string, string> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {};
  }
  const found: Record<string, string> = Object.fromEntries(parsed.searchParams);
  if (parsed.password !== "") found["password"] = decodeURIComponent(parsed.password);
  return found;
}
