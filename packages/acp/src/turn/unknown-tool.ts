import type * as acp from "@agentclientprotocol/sdk";

/**
 * The whole failure text with which an agent answers the model's call of a tool it does not have
 * (a name the model invented), naming that tool: Claude Code (through its ACP adapters)
 * `<tool_use_error>Error: No such tool available: <name></tool_use_error>`, possibly in a code fence.
 */
const UNKNOWN_TOOL: readonly RegExp[] = [/^(?:```\s*)?<tool_use_error>Error: No such tool available: (\S+)<\/tool_use_error>(?:\s*```)?$/];

/** The tool a failure text says the agent does not have (see {@link UNKNOWN_TOOL}), if it says that and nothing else. */
function unknownToolIn(text: string): string | undefined {
  for (const pattern of UNKNOWN_TOOL) {
    const match = pattern.exec(text.trim());
    if (match) return match[1];
  }
  return undefined;
}

/**
 * True when a `failed` update reports that the agent has no tool `name`: every text it carries
 * (its text content, and its `rawOutput`: a string or text blocks) is exactly the agent's
 * "no such tool" answer naming `name`, and it carries nothing else (no diff, no terminal, no
 * other output). The agent answered the call itself: no tool ran.
 */
export function reportsUnknownTool(update: acp.ToolCallUpdate, name: string): boolean {
  const texts: string[] = [];
  for (const item of update.content ?? []) {
    if (item.type !== "content" || item.content.type !== "text") return false;
    texts.push(item.content.text);
  }
  const raw = update.rawOutput;
  if (typeof raw === "string") texts.push(raw);
  else if (Array.isArray(raw)) {
    // A model API's content blocks (Claude Code's tool result): text blocks only.
    for (const block of raw as unknown[]) {
      const text = (block as { type?: unknown; text?: unknown } | null)?.text;
      if ((block as { type?: unknown } | null)?.type !== "text" || typeof text !== "string") return false;
      texts.push(text);
    }
  } else if (raw !== undefined && raw !== null) return false;
  return texts.length > 0 && texts.every((text) => unknownToolIn(text) === name);
}
