import { DriverError, ErrCode } from "@adaptor/errors";
import { MCP_CONNECT_OP, type DriverEvent, type McpServerConfig } from "@adaptor/driver";

/** One entry of the init line's `mcp_servers`. */
export interface McpServerStatus {
  readonly name: string;
  /** As claude 2.1.332 reports it: `connected`, `failed`, `pending` (still connecting when the turn started), `needs-auth`, ... */
  readonly status: string;
  /** `dynamic` for `--mcp-config` servers, `user` / `project` / `local` for the user's own. */
  readonly source?: string;
}

/** The `mcp_servers` of a `system init` line, or `undefined` for any other line. */
export function mcpServerStatuses(message: Record<string, unknown>): readonly McpServerStatus[] | undefined {
  if (message.type !== "system" || message.subtype !== "init") return undefined;
  const list = Array.isArray(message.mcp_servers) ? (message.mcp_servers as unknown[]) : [];
  return list.flatMap((entry) => {
    if (typeof entry !== "object" || entry === null) return [];
    const { name, status, source } = entry as Record<string, unknown>;
    if (typeof name !== "string") return [];
    return [{ name, status: typeof status === "string" ? status : "unknown", ...(typeof source === "string" ? { source } : {}) }];
  });
}

/**
 * Reads MCP server status from a claude `system init` line; other lines are ignored.
 * claude 2.1.332 prints the line once every server connected, failed, or was still `pending` after
 * its connect timeout, as `"mcp_servers":[{"name":"x","status":"connected","source":"dynamic"}]`
 * (seen on the real binary: a server that exits at start, a missing executable and an unreachable
 * URL all read `failed`). Emits one `notice` of kind `mcp.status` listing every server, then
 * checks the run's required servers.
 *
 * @returns whether the line reported the servers (an init line carrying their status).
 * @throws DriverError with code `DEVICE_DISCONNECTED`, op `mcp connect`, device = the first
 * required server whose status is not `connected` (or that the line does not list), e.g.
 * `[DEVICE_DISCONNECTED] mcp connect: files (required MCP server reported status "failed")`. The
 * driver then ends the process; the run rejects with this ordinary (non-`RunError`) error. When
 * the run was already stopped (`stopped`: its signal aborted, e.g. by the active-execution budget)
 * the CLI prints the line as it shuts down, and a server still starting reads `failed`: the error
 * then says the server was still starting when the run was stopped, e.g.
 * `[DEVICE_DISCONNECTED] mcp connect: files (still starting when the run was stopped; then:
 * required MCP server reported status "failed")`, so that a stop is not read as a broken server.
 */
export function checkMcpStatus(
  message: Record<string, unknown>,
  servers: readonly McpServerConfig[] | undefined,
  emit: (event: DriverEvent) => void,
  stopped = false,
): boolean {
  const statuses = mcpServerStatuses(message);
  if (!statuses) return false;
  if (statuses.length > 0) {
    emit({ type: "notice", kind: "mcp.status", message: "MCP servers at init", data: { servers: statuses.map((s) => ({ ...s })) } });
  }
  for (const server of servers ?? []) {
    if (!server.required) continue;
    const status = statuses.find((entry) => entry.name === server.name)?.status;
    if (status === "connected") continue;
    const reported = status
      ? `required MCP server reported status ${JSON.stringify(status)}`
      : "required MCP server missing from the init line";
    throw new DriverError({
      op: MCP_CONNECT_OP,
      device: server.name,
      code: ErrCode.DeviceDisconnected,
      cause: stopped ? `still starting when the run was stopped; then: ${reported}` : reported,
    });
  }
  return true;
}

/**
 * For a run stopped (its signal aborted, e.g. by the active-execution budget) before the CLI ever
 * reported its MCP servers: Claude Code writes its init line, with their status, only once every
 * server started or failed, so the run's servers were still starting. Throws the `mcp connect`
 * error of the first required one, as {@link checkMcpStatus} does for a CLI that reports them as
 * it shuts down (which a CLI slow to shut down, on a busy machine, may not get to).
 * @throws DriverError `DEVICE_DISCONNECTED`, op `mcp connect`, device the first required server,
 * e.g. `[DEVICE_DISCONNECTED] mcp connect: files (still starting when the run was stopped; then:
 * the CLI ended before reporting its MCP servers)`; nothing when no server is required.
 */
export function checkMcpStoppedBeforeReport(servers: readonly McpServerConfig[] | undefined): void {
  const required = servers?.find((server) => server.required === true);
  if (!required) return;
  throw new DriverError({
    op: MCP_CONNECT_OP,
    device: required.name,
    code: ErrCode.DeviceDisconnected,
    cause: "still starting when the run was stopped; then: the CLI ended before reporting its MCP servers",
  });
}
