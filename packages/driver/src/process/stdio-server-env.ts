import { envNameMatches, SAFE_ENV_BASE, type InheritEnv } from "./child-env.js";
import { PROCESS_TAG_VAR } from "./descendants.js";

/** A stdio server (an MCP server) a CLI starts itself, with the environment rules that apply to it. */
export interface StdioServerLaunch {
  /** Executable, a path or a name on the CLI's `PATH`. */
  readonly command: string;
  /** Arguments, passed as is. */
  readonly args?: readonly string[];
  /** Variables the server is declared with; always kept. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Which variables of the CLI's own environment the server keeps besides its declared `env`:
   * `true` all of them, `false` none, a list of names (a trailing `*` matches a prefix) kept in
   * addition to {@link SAFE_ENV_BASE}. Default {@link SAFE_ENV_BASE}.
   */
  readonly inheritEnv?: InheritEnv;
}

/** Where `env` lives on every supported system (Linux, macOS). */
const ENV_BINARY = "/usr/bin/env";

/**
 * The command line that starts a stdio server with only its declared `env` plus the inherited part
 * of the CLI's environment ({@link SAFE_ENV_BASE} and the names `inheritEnv` lists), never the rest of it
 * (credentials the CLI was given, host secrets passed to the CLI): the server is started through
 * `/usr/bin/env -u NAME ...`, unsetting every other variable the CLI was launched with. Only names
 * go on the command line, never values. With `inheritEnv: true` the command is returned unchanged.
 * Variables the CLI itself adds for its servers are not known here and pass through.
 *
 * @param server - the declaration.
 * @param cliEnv - the environment the CLI is launched with (`undefined` values are removed ones).
 * @returns the command and args to give the CLI in place of the declaration's.
 */
export function isolateStdioServer(
  server: StdioServerLaunch,
  cliEnv: Readonly<Record<string, string | undefined>>,
): { command: string; args: string[] } {
  const args = [...(server.args ?? [])];
  // A list adds to the safe base: a server asked to see AWS_* still finds its command on PATH.
  const inherit = Array.isArray(server.inheritEnv) ? [...SAFE_ENV_BASE, ...server.inheritEnv] : (server.inheritEnv ?? SAFE_ENV_BASE);
  if (inherit === true) return { command: server.command, args };
  const declared = new Set(Object.keys(server.env ?? {}));
  const unset: string[] = [];
  for (const [name, value] of Object.entries(cliEnv)) {
    if (value === undefined || declared.has(name) || name === PROCESS_TAG_VAR) continue;
    if (inherit === false || !envNameMatches(name, inherit)) unset.push("-u", name);
  }
  // `env` reads a leading NAME=VALUE operand as an assignment: start such a command through sh.
  const target = server.command.includes("=") ? ["/bin/sh", "-c", 'exec "$0" "$@"', server.command] : ["--", server.command];
  return { command: ENV_BINARY, args: [...unset, ...target, ...args] };
}
