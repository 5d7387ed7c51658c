import type * as acp from "@agentclientprotocol/sdk";
import { mcpToolOf, type McpServerTools } from "@adaptor/driver/kit";

/**
 * The tool's name as the agent knows it: the ACP `name` field, else a `toolName` an adapter puts in
 * `_meta` (Qwen Code: `_meta.toolName`; Claude Code's ACP adapter: `_meta.claudeCode.toolName`),
 * else the title (a human label such as "ReadFile: a.txt", the last resort), else `kind`.
 */
export function toolNameOf(call: acp.ToolCallUpdate | acp.ToolCall): string {
  if (typeof call.name === "string" && call.name !== "") return call.name;
  const meta = call._meta ?? {};
  for (const key of ["toolName", "tool_name"]) {
    const name = meta[key];
    if (typeof name === "string" && name !== "") return name;
  }
  for (const value of Object.values(meta)) {
    const name = (value as Record<string, unknown> | null)?.["toolName"];
    if (typeof name === "string" && name !== "") return name;
  }
  return call.title || call.kind || "tool";
}

/** The text of a finished tool call: its text content, diffs by path, else its raw output as JSON. */
export function toolCallText(update: acp.ToolCallUpdate): string {
  const parts: string[] = [];
  for (const item of update.content ?? []) {
    if (item.type === "content" && item.content.type === "text") parts.push(item.content.text);
    else if (item.type === "diff") parts.push(`diff ${item.path}`);
    else if (item.type === "terminal") parts.push(`terminal ${item.terminalId}`);
  }
  if (parts.length > 0) return parts.join("\n");
  const raw = update.rawOutput;
  if (raw === undefined || raw === null) return "";
  if (typeof raw === "string") return raw;
  const output = (raw as Record<string, unknown>)["output"];
  return typeof output === "string" ? output : JSON.stringify(raw);
}

/**
 * A trusted MCP server (the SDK's host-tool server) and the exact names of the tools it offers;
 * without tools none of its calls can be told apart, so none is trusted.
 */
export type TrustedServer = McpServerTools;

/** ACP tool kinds that change the machine: a call of one of them is never trusted by its name. */
const ACTING_KINDS: ReadonlySet<string> = new Set(["edit", "delete", "move", "execute"]);

/** True for ACP kind `edit`, `delete`, `move` or `execute`. */
export function changesMachine(kind: string | null | undefined): boolean {
  return typeof kind === "string" && ACTING_KINDS.has(kind);
}

/** How far a kind acts: 3 changes the machine, 2 may act (`fetch`, `switch_mode`, `other`, unknown), 1 `think`, 0 `read` / `search`. */
function actingRank(kind: string): number {
  if (changesMachine(kind)) return 3;
  if (kind === "think") return 1;
  return kind === "read" || kind === "search" ? 0 : 2;
}

/**
 * The more acting of a call's kind so far (`current`) and the kind a later ask or update of it gives
 * (`next`): `edit`, `delete`, `move`, `execute` over `fetch`, `switch_mode`, `other` or an unknown
 * kind, over `think`, over `read` and `search`; between two alike the later. No kind changes nothing,
 * so a later ask or update cannot turn a call that acts into a read.
 */
export function moreActing<K extends string>(current: K | undefined, next: K | null | undefined): K | undefined {
  if (next === undefined || next === null) return current;
  if (current === undefined) return next;
  return actingRank(next) >= actingRank(current) ? next : current;
}

/**
 * Whether a tool call is a call of one of `servers`' tools (the run's trusted MCP servers, e.g. the
 * SDK's host-tool server), by the exact names agents give MCP tools ({@link mcpToolOf}: `name`
 * `mcp__<server>__<tool>` (Claude Code) or `mcp_<server>_<tool>` (Gemini CLI), a title
 * `Tool: <server>/<tool>`, or an input naming both `server` / `server_name` and `tool` /
 * `tool_name` (Codex)), for a `<tool>` the server offers. All of that is text the agent chooses: a
 * call whose ACP `kind` acts (`edit`, `delete`, `move`, `execute`) is never taken as one, whatever
 * its name.
 */
export function callsServer(
  call: acp.ToolCallUpdate,
  name: string,
  servers: readonly TrustedServer[],
  kind: string | null | undefined = call.kind,
): boolean {
  if (changesMachine(kind)) return false;
  return mcpToolOf({ name, title: call.title, input: call.rawInput }, servers) !== undefined;
}
