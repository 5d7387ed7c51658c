/**
 * The key of a checkpoint's `data` that records an "always" grant in its session: the host
 * answered an ask there with the agent's `allow_always` option (which lets the agent run the tool's
 * later calls, or all of them, without asking). Set on every later checkpoint of the session and
 * of its forks.
 */
const ALWAYS_ALLOWED = "alwaysAllowed";

/** True when a checkpoint's `data` records an "always" grant in its session (see {@link ALWAYS_ALLOWED}). */
export function alwaysAllowedIn(data: unknown): boolean {
  return typeof data === "object" && data !== null && (data as Record<string, unknown>)[ALWAYS_ALLOWED] === true;
}

/**
 * A checkpoint's `data`: the session's cumulative cost in USD when known, and the "always" grant
 * when one was given in the session. Undefined when there is neither.
 */
export function checkpointData(sessionCostUsd: number | undefined, alwaysAllowed: boolean): Record<string, unknown> | undefined {
  if (sessionCostUsd === undefined && !alwaysAllowed) return undefined;
  return { ...(sessionCostUsd !== undefined ? { sessionCostUsd } : {}), ...(alwaysAllowed ? { [ALWAYS_ALLOWED]: true } : {}) };
}
