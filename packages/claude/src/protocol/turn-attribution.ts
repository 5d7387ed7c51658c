/** Which turn a stdout line of a reused process belongs to, as far as the line itself says. */
export type Attribution = "this" | "other" | "unknown";

/**
 * Reads the prompt ids the CLI tags a turn's lines with (`user_message_uuid`, `user_message_uuids`,
 * and `command_uuid` on `command_lifecycle` lines: the `uuid` of the user line that started the
 * turn) and compares them with `promptId` (or the ids of every user line the turn was given): `"this"`
 * when the line names it, `"other"` when it names only other prompts (an earlier turn's late
 * output), `"unknown"` when it names none (deltas, tool results and control requests carry no tag).
 */
export function attribute(message: Record<string, unknown>, promptId: string | ReadonlySet<string>): Attribution {
  // Most lines (every delta) carry no tag: answer without allocating.
  if (message.user_message_uuid === undefined && message.command_uuid === undefined && message.user_message_uuids === undefined)
    return "unknown";
  const ids: unknown[] = [];
  if (typeof message.user_message_uuid === "string") ids.push(message.user_message_uuid);
  if (typeof message.command_uuid === "string") ids.push(message.command_uuid);
  if (Array.isArray(message.user_message_uuids)) ids.push(...(message.user_message_uuids as unknown[]));
  const named = ids.filter((id): id is string => typeof id === "string" && id !== "");
  if (named.length === 0) return "unknown";
  const ours = typeof promptId === "string" ? (id: string) => id === promptId : (id: string) => promptId.has(id);
  return named.some(ours) ? "this" : "other";
}
