import type { AnyMessage } from "@agentclientprotocol/sdk";

/** The tool kinds ACP defines. */
const TOOL_KINDS: ReadonlySet<string> = new Set([
  "read",
  "edit",
  "delete",
  "move",
  "search",
  "execute",
  "think",
  "fetch",
  "switch_mode",
  "other",
]);

/**
 * The `kind` of a tool call as ACP spells it: a known kind written with other case or spaces
 * (`"Execute"`, `" delete "`) is that kind; any other value an agent gives (an unknown word, a
 * number) is `"other"`, a kind that may act, so it is never read as the absence of a kind (which a
 * later ask as `read` would then define).
 */
export function toolKindOf(kind: unknown): string {
  const word = typeof kind === "string" ? kind.trim().toLowerCase() : "";
  return TOOL_KINDS.has(word) ? word : "other";
}

/**
 * Makes the tool kinds of an agent's message readable before the ACP SDK checks it: the `kind` of a
 * `session/update` of a `tool_call` or `tool_call_update` and of a `session/request_permission`'s `toolCall`
 * ({@link toolKindOf}), which the SDK would otherwise drop as unknown. Changes the message in place;
 * any other message is left as it is.
 */
export function normalizeToolKinds(message: AnyMessage): void {
  if (!("method" in message)) return;
  const params = (message as { params?: unknown }).params;
  if (typeof params !== "object" || params === null) return;
  const update = (params as { update?: { sessionUpdate?: unknown } }).update;
  const holder =
    message.method === "session/update"
      ? update?.sessionUpdate === "tool_call" || update?.sessionUpdate === "tool_call_update"
        ? update
        : undefined
      : message.method === "session/request_permission"
        ? (params as { toolCall?: unknown }).toolCall
        : undefined;
  if (typeof holder !== "object" || holder === null || !("kind" in holder)) return;
  const call = holder as { kind?: unknown };
  if (call.kind === undefined || call.kind === null) return;
  call.kind = toolKindOf(call.kind);
}
