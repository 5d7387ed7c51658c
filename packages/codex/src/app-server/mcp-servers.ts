import { MCP_CONNECT_OP, type ApprovalAsk, type McpServerConfig, type McpServerState } from "@adaptor/driver";
import { mcpStatusOf, type ElicitationRequest, type ElicitationResult } from "@adaptor/driver/kit";
import { DriverError, ErrCode } from "@adaptor/errors";
import { isolateStdioServer, STDIO_SERVER_VAR, withStdioCommandProblems } from "@adaptor/driver/process";
import type { ServerRequest } from "../protocol/generated/ServerRequest.js";

/** The server request codex 0.171.0 sends to ask before an MCP tool call (approval policy other than `never`). */
export const MCP_ELICITATION_METHOD = "mcpServer/elicitation/request";

/** codex's answer to an `mcpServer/elicitation/request` (its `McpServerElicitationRequestResponse`). */
export interface McpElicitationAnswer {
  readonly action: "accept" | "decline" | "cancel";
  /** The form's content, for an `accept` of a form. */
  readonly content: Readonly<Record<string, unknown>> | null;
  readonly _meta: null;
}

/**
 * The run's MCP servers as codex's `mcp_servers` config table, sent in the `thread/start` /
 * `thread/resume` / `thread/fork` `config` (over stdin: no value reaches argv or a file).
 * A stdio server gets `command` / `args` (started through `/usr/bin/env -u …` so it keeps only its
 * declared `env`, a safe base of `cliEnv` and what its `inheritEnv` asks for, see
 * `isolateStdioServer`), `env` (its declared variables, plus the kit's stdio-server marker) and
 * `required`; an `http` server `url`, `http_headers` (the bearer token the SDK resolved) and
 * `required`. An `sse` server is not offered (the descriptor does not list the transport).
 * `toolsApproval` is every other server's `default_tools_approval_mode`: `"prompt"` under approval
 * policy `untrusted` (the host's permission is `ask` or `auto_deny`), because left to itself codex
 * 0.171.0 runs a tool its server annotates read-only (`readOnlyHint`, or neither destructive nor
 * open-world) without asking, so a server could take its own tools out of the host's approval by how
 * it describes them; `"approve"` under approval policy `never` (`auto_approve`), where codex would
 * refuse every other call ("MCP tool call requires approval, but approval policy is never");
 * `undefined` leaves it to codex.
 */
export function codexMcpServers(
  servers: readonly McpServerConfig[],
  cliEnv: Readonly<Record<string, string | undefined>>,
  toolsApproval?: "prompt" | "approve",
): Record<string, Record<string, unknown>> {
  const table: Record<string, Record<string, unknown>> = {};
  for (const server of servers) {
    const required = server.required === true ? { required: true } : {};
    table[server.name] =
      server.transport === "stdio"
        ? { ...isolateStdioServer(server, cliEnv), env: { ...server.env, [STDIO_SERVER_VAR]: "1" }, ...required }
        : { url: server.url, ...(server.headers ? { http_headers: { ...server.headers } } : {}), ...required };
    // The SDK's host tools pass the host's own approval gate: codex runs them without asking.
    if (server.trusted === true) table[server.name] = { ...table[server.name], default_tools_approval_mode: "approve" };
    else if (toolsApproval) table[server.name] = { ...table[server.name], default_tools_approval_mode: toolsApproval };
  }
  return table;
}

/** What codex's elicitation `_meta` says of an MCP tool call it asks about. */
interface McpToolCallMeta {
  readonly tool: string;
  readonly params: unknown;
  readonly description: string | undefined;
}

function toolCallMeta(meta: unknown): McpToolCallMeta | undefined {
  if (typeof meta !== "object" || meta === null) return undefined;
  const record = meta as Record<string, unknown>;
  if (record["codex_approval_kind"] !== "mcp_tool_call" || typeof record["tool_name"] !== "string") return undefined;
  return {
    tool: record["tool_name"],
    params: record["tool_params"] ?? {},
    description: typeof record["tool_description"] === "string" ? record["tool_description"] : undefined,
  };
}

/**
 * How to answer an `mcpServer/elicitation/request`: `"accept"` at once for a tool of a trusted
 * server (the SDK's host-tool server, whose calls pass the host's own approval path), an
 * {@link ApprovalAsk} (kind `permission`, `toolName` `mcp__<server>__<tool>`, the call's arguments as
 * `input`) for codex's ask before another server's tool call, and the {@link ElicitationRequest}
 * of an MCP server's own elicitation (a `form`, codex's `openai/form` variants read as one, or a
 * `url`), which goes to the host as an `elicitation` ask.
 */
export function mcpElicitation(
  request: ServerRequest,
  servers: readonly McpServerConfig[] | undefined,
): { readonly answer: "accept" | "decline" } | { readonly ask: ApprovalAsk } | { readonly elicitation: ElicitationRequest } {
  if (request.method !== MCP_ELICITATION_METHOD) return { answer: "decline" };
  const params = request.params;
  const call = toolCallMeta(params._meta);
  if (!call) return { elicitation: serverElicitation(params) };
  const server = servers?.find((entry) => entry.name === params.serverName);
  if (server?.trusted === true && server.tools?.includes(call.tool) === true) return { answer: "accept" };
  const toolName = `mcp__${params.serverName}__${call.tool}`;
  const args = JSON.stringify(call.params) ?? "";
  return {
    ask: {
      kind: "permission",
      title: `${toolName}: ${args.length > 120 ? `${args.slice(0, 119)}…` : args}`,
      toolName,
      input: call.params,
      details: {
        method: MCP_ELICITATION_METHOD,
        server: params.serverName,
        tool: call.tool,
        message: params.message,
        ...(call.description !== undefined ? { description: call.description } : {}),
      },
    },
  };
}

/** An MCP server's own elicitation, from codex's request params. */
function serverElicitation(params: Extract<ServerRequest, { method: typeof MCP_ELICITATION_METHOD }>["params"]): ElicitationRequest {
  const common = { server: params.serverName, message: params.message };
  if (params.mode === "url") return { ...common, mode: "url", url: params.url, elicitationId: params.elicitationId };
  const schema = params.requestedSchema as unknown;
  return {
    ...common,
    mode: "form",
    ...(typeof schema === "object" && schema !== null && !Array.isArray(schema)
      ? { requestedSchema: schema as Record<string, unknown> }
      : {}),
  };
}

/** The elicitation answer for `action`, or for an {@link ElicitationResult} (an accepted form's content). */
export function elicitationAnswer(action: McpElicitationAnswer["action"] | ElicitationResult): McpElicitationAnswer {
  if (typeof action === "string") return { action, content: null, _meta: null };
  return { action: action.action, content: action.content ?? null, _meta: null };
}

/**
 * The typed failure for a `thread/start` / `thread/resume` / `thread/fork` error that says a required
 * MCP server did not start (codex 0.171.0: "required MCP servers failed to initialize: <name>:
 * <why>"): `DriverError` `DEVICE_DISCONNECTED`, op {@link MCP_CONNECT_OP}, device the first required
 * server the message names; `undefined` for any other error.
 */
export function requiredMcpFailure(message: string, servers: readonly McpServerConfig[] | undefined): DriverError | undefined {
  const marker = "required MCP servers failed to initialize:";
  const at = message.indexOf(marker);
  if (at < 0) return undefined;
  const detail = message.slice(at + marker.length).trim();
  const named = (servers ?? []).find((server) => server.required === true && detail.startsWith(`${server.name}:`));
  return new DriverError({
    op: MCP_CONNECT_OP,
    device: named?.name ?? detail.split(":", 1)[0] ?? "mcp",
    code: ErrCode.DeviceDisconnected,
    cause: detail,
  });
}

/** The notification codex 0.171.0 sends as each MCP server of a thread starts (`starting`, then `ready` / `failed` / `cancelled`). */
export const MCP_STARTUP_METHOD = "mcpServer/startupStatus/updated";

/** Startup states after which a server's state no longer changes by itself. */
const SETTLED: readonly string[] = ["ready", "failed", "cancelled"];

/**
 * The startup states codex reports for the MCP servers of one process (its launch fixed their
 * names). codex starts a thread's servers beside `thread/start` and does not wait for one that is
 * not `required` before the first model request, whose tool list would then lack it; so the first
 * turn on a newly opened thread waits ({@link settled}) until each server is `ready`, `failed` or
 * `cancelled`.
 */
export class McpStartup {
  readonly #names: readonly string[];
  readonly #problems: ReadonlyMap<string, string> | undefined;
  readonly #states = new Map<string, { readonly status: string; readonly error: string | null }>();
  #changed: (() => void) | undefined;

  /**
   * @param names - the servers' names.
   * @param problems - why stdio servers will not start, by name, found before launch
   * (`checkStdioServerCommands`): such a server's `error` once it is not connected, in place of codex's.
   */
  constructor(names: readonly string[], problems?: ReadonlyMap<string, string>) {
    this.#names = names;
    this.#problems = problems;
  }

  /** Forgets the states: a thread is being opened, whose servers start again. */
  reset(): void {
    this.#states.clear();
  }

  /** Records an {@link MCP_STARTUP_METHOD} notification; other notifications are ignored. */
  accept(method: string, params: unknown): void {
    if (method !== MCP_STARTUP_METHOD || typeof params !== "object" || params === null) return;
    const { name, status, error } = params as { name?: unknown; status?: unknown; error?: unknown };
    if (typeof name !== "string" || typeof status !== "string") return;
    this.#states.set(name, { status, error: typeof error === "string" ? error : null });
    this.#changed?.();
  }

  /**
   * Each server's last reported state, in the `mcp.status` vocabulary ({@link mcpStatusOf}: `ready`
   * reads `connected`, `starting` `pending`, `cancelled` `failed`) with codex's own word as
   * `cliStatus` and its `error` (for a server not connected whose command was missing at launch:
   * `command not found: <command>`); `unknown` (no `cliStatus`) for one codex has not reported yet.
   */
  statuses(): McpServerState[] {
    const statuses = this.#names.map((name): McpServerState => {
      const state = this.#states.get(name);
      if (!state) return { name, status: "unknown" };
      return { name, status: mcpStatusOf(state.status), cliStatus: state.status, ...(state.error ? { error: state.error } : {}) };
    });
    return withStdioCommandProblems(statuses, this.#problems);
  }

  /**
   * Resolves once every server has a settled state, or when `stop` settles (the turn was
   * cancelled, the process exited, or the wait's bound passed): whichever comes first.
   */
  async settled(stop: Promise<unknown>): Promise<void> {
    const done = (): boolean => this.#names.every((name) => SETTLED.includes(this.#states.get(name)?.status ?? ""));
    if (done()) return;
    await Promise.race([
      stop.then(
        () => undefined,
        () => undefined,
      ),
      new Promise<void>((resolve) => {
        this.#changed = () => {
          if (done()) resolve();
        };
      }),
    ]).finally(() => (this.#changed = undefined));
  }
}
