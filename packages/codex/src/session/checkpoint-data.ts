import type { Usage } from "@adaptor/driver";

/**
 * What the codex driver keeps in a checkpoint's `data`, so a later turn starts exactly from that
 * checkpoint:
 * - `lastTurnId` (app-server): the id of the last committed turn. A turn resumed in a new process
 *   first drops any turn codex recorded after it (`thread/revert`); a fork copies the thread only
 *   through it (`thread/fork` with `lastTurnId`); a parked process is reused only while its last
 *   turn is this one.
 * - `turns` (exec): the number of committed turns of the thread. Before `codex exec resume`, turns
 *   codex recorded beyond it are dropped (see `rewindExecThread`).
 * - `usage` (exec): the thread's cumulative token usage as codex reported it after that turn
 *   (`codex exec resume` reports the thread's running total; the run's own usage is the difference).
 */
export interface CodexCheckpointData {
  readonly lastTurnId?: string;
  readonly turns?: number;
  readonly usage?: Usage;
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function readUsage(value: unknown): Usage | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const u = value as Record<string, unknown>;
  const inputTokens = count(u.inputTokens);
  const outputTokens = count(u.outputTokens);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const cacheReadTokens = count(u.cacheReadTokens);
  const cacheWriteTokens = count(u.cacheWriteTokens);
  return {
    inputTokens,
    outputTokens,
    ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}),
    ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
  };
}

/** Reads checkpoint `data` written by this driver; anything else (absent, foreign, malformed) reads as empty. */
export function readCheckpointData(data: unknown): CodexCheckpointData {
  if (typeof data !== "object" || data === null) return {};
  const d = data as Record<string, unknown>;
  const usage = readUsage(d.usage);
  return {
    ...(typeof d.lastTurnId === "string" && d.lastTurnId ? { lastTurnId: d.lastTurnId } : {}),
    ...(Number.isInteger(d.turns) && (d.turns as number) > 0 ? { turns: d.turns as number } : {}),
    ...(usage ? { usage } : {}),
  };
}

/**
 * This run's share of a cumulative usage report: `total - previous`, field by field. Undefined
 * (unknown) when there is no previous total or a field went down (not the same running total).
 */
export function usageSince(total: Usage, previous: Usage | undefined): Usage | undefined {
  if (!previous) return undefined;
  const diff = (now: number | undefined, before: number | undefined): number | undefined =>
    now === undefined && before === undefined ? undefined : (now ?? 0) - (before ?? 0);
  const inputTokens = total.inputTokens - previous.inputTokens;
  const outputTokens = total.outputTokens - previous.outputTokens;
  const cacheReadTokens = diff(total.cacheReadTokens, previous.cacheReadTokens);
  const cacheWriteTokens = diff(total.cacheWriteTokens, previous.cacheWriteTokens);
  if ([inputTokens, outputTokens, cacheReadTokens ?? 0, cacheWriteTokens ?? 0].some((n) => n < 0)) return undefined;
  return {
    inputTokens,
    outputTokens,
    ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}),
    ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
  };
}
