import { DriverError, ErrCode } from "@adaptor/errors";
import { MCP_CONNECT_OP, type DriverEvent, type McpServerConfig, type McpServerState } from "@adaptor/driver";
import { mcpStatusOf } from "@adaptor/driver/kit";
import { withStdioCommandProblems } from "@adaptor/driver/process";

/** The `mcp_servers` of a `system init` line, as {@link McpServerState}s, or `undefined` for any other line. */
export function mcpServerStatuses(message: Record<string, unknown>): readonly McpServerState[] | undefined {
  if (message.type !== "system" || message.subtype !== "init") return undefined;
  const list = Array.isArray(message.mcp_servers) ? (message.mcp_servers as unknown[]) : [];
  const tools = Array.isArray(message.tools) ? message.tools.filter((tool): tool is string => typeof tool === "string") : [];
  return list.flatMap((entry) => {
    if (typeof entry !== "object" || entry === null) return [];
    const { name, status, source } = entry as Record<string, unknown>;
    if (typeof name !== "string") return [];
    const cliStatus = typeof status === "string" ? status : "unknown";
    const own = mcpStatusOf(cliStatus) === "connected" ? serverTools(name, tools) : [];
    return [
      {
        name,
        status: mcpStatusOf(cliStatus),
        cliStatus,
        ...(own.length > 0 ? { tools: own } : {}),
        ...(typeof source === "string" ? { source } : {}),
      },
    ];
  });
}

/** The tools of server `name` among the init line's tool names (`mcp__<server>__<tool>`, the server's name with each character but letters, digits, `_` and `-` as `_`). */
function serverTools(name: string, tools: readonly string[]): string[] {
  const prefix = `mcp__${name.replace(/[^A-Za-z0-9_-]/g, "_")}__`;
  return tools.filter((tool) => tool.startsWith(prefix)).map((tool) => tool.slice(prefix.length));
}

/**
 * The servers of `statuses` with what Claude Code's answer to an `mcp_status` control request
 * adds: each server's `error` (e.g. `"Connection closed"` for a stdio server that exited at start)
 * and its `tools` (their names). A server the answer does not list keeps its entry.
 */
export function withMcpStatusAnswer(statuses: readonly McpServerState[], answer: unknown): McpServerState[] {
  const listed = typeof answer === "object" && answer !== null ? (answer as { mcpServers?: unknown }).mcpServers : undefined;
  const entries = Array.isArray(listed) ? (listed as unknown[]) : [];
  return statuses.map((server) => {
    const entry = entries.find((item) => typeof item === "object" && item !== null && (item as { name?: unknown }).name === server.name) as
      { error?: unknown; tools?: unknown } | undefined;
    if (!entry) return { ...server };
    const tools = Array.isArray(entry.tools)
      ? entry.tools.flatMap((tool) =>
          typeof (tool as { name?: unknown } | null)?.name === "string" ? [(tool as { name: string }).name] : [],
        )
      : undefined;
    return {
      ...server,
      ...(typeof entry.error === "string" && entry.error !== "" ? { error: entry.error } : {}),
      ...(tools && tools.length > 0 ? { tools } : {}),
    };
  });
}

/**
 * The `mcp.status` notice for `servers`; a server not connected with a reason in `problems` (a
 * stdio command missing, found before launch) has that reason as its `error`.
 */
export function mcpStatusNotice(servers: readonly McpServerState[], problems?: ReadonlyMap<string, string>): DriverEvent {
  return {
    type: "notice",
    kind: "mcp.status",
    message: "MCP servers at init",
    data: { servers: withStdioCommandProblems(servers, problems) },
  };
}

/** What a claude `system init` line says of the run's MCP servers (see {@link readMcpStatus}). */
export interface McpStatusLine {
  /** Every server the line lists. */
  readonly statuses: readonly McpServerState[];
  /** The first required server whose status is not `connected` (or that the line does not list). */
  readonly failing?: McpServerConfig;
}

/**
 * Reads MCP server status from a claude `system init` line; other lines read `undefined`.
 * claude 2.1.332 prints the line once every server connected, failed, or was still `pending` after
 * its connect timeout, as `"mcp_servers":[{"name":"x","status":"connected","source":"dynamic"}]`
 * (seen on the real binary: a server that exits at start, a missing executable and an unreachable
 * URL all read `failed`). The line carries no reason: Claude Code gives it in its answer to an
 * `mcp_status` control request ({@link withMcpStatusAnswer}).
 */
export function readMcpStatus(
  message: Record<string, unknown>,
  servers: readonly McpServerConfig[] | undefined,
): McpStatusLine | undefined {
  const statuses = mcpServerStatuses(message);
  if (!statuses) return undefined;
  const failing = (servers ?? []).find(
    (server) => server.required === true && statuses.find((entry) => entry.name === server.name)?.cliStatus !== "connected",
  );
  return { statuses, ...(failing ? { failing } : {}) };
}

/**
 * The error of a run whose required server `failing` is not connected, by `statuses` (the init
 * line's, with the `error` Claude Code's `mcp_status` answer gives, when it gave one).
 *
 * @returns DriverError with code `DEVICE_DISCONNECTED`, op `mcp connect`, device = the server, e.g.
 * `[DEVICE_DISCONNECTED] mcp connect: files (required MCP server reported status "failed":
 * Connection closed)` (without `: <reason>` when the CLI gave none). The driver then ends the
 * process; the run rejects with this ordinary (non-`RunError`) error. When the run was already
 * stopped (`stopped`: its signal aborted, e.g. by the active-execution budget) the CLI prints the
 * line as it shuts down, and a server still starting reads `failed`: the error then says the
 * server was still starting when the run was stopped, e.g. `[DEVICE_DISCONNECTED] mcp connect:
 * files (still starting when the run was stopped; then: required MCP server reported status
 * "failed")`, so that a stop is not read as a broken server.
 */
export function requiredMcpError(failing: McpServerConfig, statuses: readonly McpServerState[], stopped = false): DriverError {
  const entry = statuses.find((server) => server.name === failing.name);
  const reported = entry?.cliStatus
    ? `required MCP server reported status ${JSON.stringify(entry.cliStatus)}${entry.error ? `: ${entry.error}` : ""}`
    : "required MCP server missing from the init line";
  return new DriverError({
    op: MCP_CONNECT_OP,
    device: failing.name,
    code: ErrCode.DeviceDisconnected,
    cause: stopped ? `still starting when the run was stopped; then: ${reported}` : reported,
  });
}

/**
 * For a run stopped (its signal aborted, e.g. by the active-execution budget) before the CLI ever
 * reported its MCP servers: Claude Code writes its init line, with their status, only once every
 * server started or failed, so the run's servers were still starting. Throws the `mcp connect`
 * error of the first required one, as {@link requiredMcpError} says for a CLI that reports them as
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
