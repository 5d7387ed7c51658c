import { delimiter } from "node:path";
import { DriverError, ErrCode } from "@adaptor/errors";
import type { McpServerConfig } from "../spi/mcp-server.js";
import { MCP_CONNECT_OP } from "../spi/mcp-server.js";
import type { McpServerState } from "../spi/mcp-status.js";
import { resolveExecutable } from "./resolve-executable.js";

/**
 * Why the run's stdio servers would not start, found before the CLI starts them: each server
 * whose `command` no executable file answers to, by name, with the reason, e.g.
 * `command not found: /opt/mcp/files-server`. A command with a `/` is a path (resolved against
 * `cwd`, where the CLI starts its servers); a bare name is looked up on the `PATH` the server will
 * get (its declared `env.PATH`, else the CLI's, which every server keeps unless its `inheritEnv`
 * is `false`: such a server's command is not checked, nor any when the CLI's `PATH` is unknown;
 * an empty entry is `cwd`, as `execvp` reads it).
 *
 * Checked here because a CLI cannot say it: every stdio server is started through `/usr/bin/env`
 * (`isolateStdioServer`), so the CLI always starts `env`, whose "No such file or directory" goes
 * to a stderr no CLI reports; Claude Code then says only `Connection closed`.
 *
 * @param servers - the run's MCP servers (only `stdio` ones are checked).
 * @param cliEnv - the environment the CLI is launched with (`undefined` values are removed ones).
 * @param cwd - the CLI's working directory.
 * @returns the reasons of the servers that are not `required`, by server name (empty when all
 * commands are found); the driver reports each as that server's `error` in its `mcp.status` notice.
 * @throws DriverError `DEVICE_DISCONNECTED`, op `mcp connect`, device the first `required` server
 * with a reason, whose cause is that reason, e.g. `[DEVICE_DISCONNECTED] mcp connect: files
 * (command not found: files-server)`: the run is refused before the CLI starts, as a required
 * server that failed to start fails it.
 */
export async function checkStdioServerCommands(
  servers: readonly McpServerConfig[] | undefined,
  cliEnv: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<ReadonlyMap<string, string>> {
  const problems = new Map<string, string>();
  for (const server of servers ?? []) {
    if (server.transport !== "stdio") continue;
    const path = server.env?.PATH ?? (server.inheritEnv === false ? undefined : cliEnv.PATH);
    if (path === undefined && !server.command.includes("/")) continue;
    const problem = await commandProblem(server.command, cwd, path === undefined ? undefined : execvpPath(path));
    if (problem === undefined) continue;
    if (server.required === true) {
      throw new DriverError({ op: MCP_CONNECT_OP, device: server.name, code: ErrCode.DeviceDisconnected, cause: problem });
    }
    problems.set(server.name, problem);
  }
  return problems;
}

/**
 * `statuses` with the reason {@link checkStdioServerCommands} found for each server that is not
 * `connected` as its `error`, in place of the CLI's (which, for a command that could not start,
 * says only that the connection closed).
 */
export function withStdioCommandProblems(
  statuses: readonly McpServerState[],
  problems: ReadonlyMap<string, string> | undefined,
): McpServerState[] {
  return statuses.map((server) => {
    const problem = server.status === "connected" ? undefined : problems?.get(server.name);
    return problem === undefined ? { ...server } : { ...server, error: problem };
  });
}

/**
 * `path` as `execvp` searches it (the `env` wrapper starts the server with it): an empty entry (a
 * leading, trailing or doubled separator, or an empty `PATH`) is the working directory.
 */
function execvpPath(path: string): string {
  return path
    .split(delimiter)
    .map((dir) => (dir === "" ? "." : dir))
    .join(delimiter);
}

/** Why `command` would not start (`undefined`: an executable file answers to it). */
async function commandProblem(command: string, cwd: string, path: string | undefined): Promise<string | undefined> {
  try {
    await resolveExecutable(command, { cwd, ...(path !== undefined ? { path } : {}) });
    return undefined;
  } catch (error) {
    if (!(error instanceof DriverError)) throw error;
    if (error.code === ErrCode.NotFound) return `command not found: ${command}`;
    const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
    return `command cannot be started: ${command} (${cause})`;
  }
}
