/** `tool-call` kinds that only read, search or reason (see `ToolCallEvent.kind`). */
const NO_EFFECT_KINDS: ReadonlySet<string> = new Set(["read", "search", "think"]);

/**
 * Whether a tool call of `kind` can have no effect: `read`, `search` or `think`. Every other kind
 * (`edit`, `delete`, `move`, `execute`, `fetch`, `switch_mode`, `other`, an unknown one) and an
 * absent kind may act. The SDK's `approval.unasked` notice and a driver's own check of unasked
 * calls use this one set, so the notice and the verdict agree.
 */
export function hasNoEffect(kind: string | null | undefined): boolean {
  return typeof kind === "string" && NO_EFFECT_KINDS.has(kind);
}
