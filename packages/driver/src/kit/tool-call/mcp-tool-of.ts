/** An MCP server a run gives the agent: its name in the run's `mcpServers` and its tools' names. */
export interface McpServerTools {
  readonly name: string;
  /** Its tools' exact names; absent or empty: no call is taken as one of its tools. */
  readonly tools?: readonly string[] | ReadonlySet<string> | undefined;
}

/** What an agent says of a tool call, each part of which may name an MCP server's tool. */
export interface McpToolCallNames {
  /** The tool's name as the agent gives it: `mcp__<server>__<tool>` or `mcp_<server>_<tool>`. */
  readonly name?: string | undefined;
  /** The call's title (a label for people): `Tool: <server>/<tool>`. */
  readonly title?: string | null | undefined;
  /** The call's input: an object naming `server` or `server_name`, and `tool` or `tool_name`. */
  readonly input?: unknown;
}

/** The MCP server's tool a call is: the server's name and the tool's. */
export interface McpToolRef {
  readonly server: string;
  readonly tool: string;
}

/**
 * The tool of one of `servers` that a tool call is, by the exact names agents give MCP tools:
 * its `name` is `mcp__<server>__<tool>` (Claude Code, Codex) or `mcp_<server>_<tool>` (Gemini CLI),
 * its `title` is `Tool: <server>/<tool>` (codex-acp), or its `input` names the server (`server` or
 * `server_name`) and the tool (`tool` or `tool_name`) (codex-acp); `<tool>` must be one of that
 * server's `tools`, exactly. Each form is read only from the part named (a title
 * `mcp__<server>__<tool>` is not one). `undefined` for any other call. All of it is text the agent
 * chooses: whoever trusts a call by it must check what the call does as well.
 * @param call the call's name, title and input, as the agent reported them; a part left out is not read.
 * @param servers the servers whose tools count, first match wins.
 */
export function mcpToolOf(call: McpToolCallNames, servers: readonly McpServerTools[]): McpToolRef | undefined {
  const { name, title } = call;
  const input = typeof call.input === "object" && call.input !== null ? (call.input as Record<string, unknown>) : undefined;
  for (const server of servers) {
    const offers = (tool: unknown): tool is string => typeof tool === "string" && hasTool(server.tools, tool);
    const of = (text: string | null | undefined, prefix: string): string | undefined => {
      if (typeof text !== "string" || !text.startsWith(prefix)) return undefined;
      const tool = text.slice(prefix.length);
      return offers(tool) ? tool : undefined;
    };
    const named =
      of(name, `mcp__${server.name}__`) ??
      of(name, `mcp_${server.name}_`) ??
      of(title, `Tool: ${server.name}/`) ??
      (input && (input["server_name"] === server.name || input["server"] === server.name)
        ? [input["tool_name"], input["tool"]].find(offers)
        : undefined);
    if (named !== undefined) return { server: server.name, tool: named };
  }
  return undefined;
}

function hasTool(tools: McpServerTools["tools"], tool: string): boolean {
  if (tools === undefined) return false;
  return Array.isArray(tools) ? tools.includes(tool) : (tools as ReadonlySet<string>).has(tool);
}
