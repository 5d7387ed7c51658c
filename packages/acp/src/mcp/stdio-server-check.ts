import { setTimeout as sleep } from "node:timers/promises";
import type { McpServerConfig } from "@adaptor/driver";
import { processEnvEntry, processHandingOver, type CliProcess } from "@adaptor/driver/process";

/**
 * Set in the environment of every stdio server declared to an ACP agent, to the server's name: the
 * driver finds the server among the agent's processes by it ({@link stdioServersNotRunning}).
 */
export const MCP_SERVER_NAME_VAR = "ADAPTOR_MCP_SERVER";

/**
 * How long, in ms, a server not found yet is looked for again while one of the agent's processes is
 * still handing over to a program: its environment reads empty (in the middle of an `execve`), it is
 * a launcher whose command line names the server's tag (`env` starting the server, a shell running
 * it), or a fork not yet exec'd (see `processHandingOver`). 2,000.
 */
export const EXEC_SETTLE_MS = 2_000;
/** The wait between two such looks, in ms. */
const EXEC_SETTLE_STEP_MS = 25;

/**
 * The declared stdio servers none of the agent's live processes is (by {@link MCP_SERVER_NAME_VAR}):
 * servers the agent never started (an agent may ignore `mcpServers`: Nanocoder 1.30.0 does), or
 * that ended. ACP reports no MCP server status; the agent's processes, read from `/proc` after its
 * turn ended, are what the host can rely on. A process still handing over to a program (its
 * environment reads empty, or is a launcher's or its parent's: see {@link EXEC_SETTLE_MS}) is read
 * again, with the agent's processes listed anew (a launcher may start the server as a new process),
 * for at most {@link EXEC_SETTLE_MS}, before a server is called missing. Undefined
 * where the agent's processes cannot be listed (not Linux).
 */
export async function stdioServersNotRunning(
  child: Pick<CliProcess, "listDescendants">,
  servers: readonly McpServerConfig[],
): Promise<McpServerConfig[] | undefined> {
  const stdio = servers.filter((server) => server.transport === "stdio");
  if (stdio.length === 0) return [];
  let live = await child.listDescendants?.();
  if (live === undefined) return undefined;
  const deadline = Date.now() + EXEC_SETTLE_MS;
  for (let round = 0; ; round++) {
    // Listed again each round: a launcher may start the server as a process of its own (a fork, not an exec).
    if (round > 0) live = (await child.listDescendants?.()) ?? [];
    const pids = live;
    let unsettled = false;
    const missing = stdio.filter((server) => {
      const entry = `${MCP_SERVER_NAME_VAR}=${server.name}`;
      return !pids.some((pid) => {
        const state = processEnvEntry(pid, entry);
        if (state === "empty" || (state === "lacks" && processHandingOver(pid, entry))) unsettled = true;
        return state === "has";
      });
    });
    if (missing.length === 0 || !unsettled || Date.now() >= deadline) return missing;
    await sleep(EXEC_SETTLE_STEP_MS);
  }
}
