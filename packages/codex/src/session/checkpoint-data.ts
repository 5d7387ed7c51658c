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
 * - `model`, `effort`: the model and reasoning effort the thread's turns last named; a later turn
 *   of the thread (or of a fork made at this checkpoint) that names none runs with them.
 * - `lineage` (app-server): for a fork, the rollouts of the threads it was forked from (its
 *   parent, the parent's parent, …), each named by its path below `CODEX_HOME` with its length
 *   in bytes when the fork was made. codex resumes a fork by reading its parent's rollout up to
 *   the fork point, so these files travel with the fork's own (see `codexSessionTransfer`).
 * - `writableRoots` (app-server): the writable roots besides the working directory codex gave the
 *   thread (its `workspace-write` policy's), kept from an earlier turn when a turn ran under
 *   another sandbox. codex keeps a thread's roots when it resumes or forks it, so a later turn
 *   under `workspace_write` without one of them is refused before launch (`checkWritableRoots`).
 */
export interface CodexCheckpointData {
  readonly lastTurnId?: string;
  readonly turns?: number;
  readonly usage?: Usage;
  readonly model?: string;
  readonly effort?: string;
  readonly lineage?: readonly LineageFile[];
  readonly writableRoots?: readonly string[];
}

/** A rollout of a thread a fork was forked from: its path below `CODEX_HOME` and the bytes of it the fork reads. */
export interface LineageFile {
  readonly name: string;
  readonly bytes: number;
}

function readLineage(value: unknown): LineageFile[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const files = value.filter(
    (f): f is LineageFile =>
      typeof f === "object" && f !== null && typeof f.name === "string" && Number.isSafeInteger(f.bytes) && f.bytes > 0,
  );
  return files.length === value.length && files.length > 0 ? files.map(({ name, bytes }) => ({ name, bytes })) : undefined;
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
  const reasoningTokens = count(u.reasoningTokens);
  return {
    inputTokens,
    outputTokens,
    ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}),
    ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
    ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
  };
}

/** Reads checkpoint `data` written by this driver; anything else (absent, foreign, malformed) reads as empty. */
export function readCheckpointData(data: unknown): CodexCheckpointData {
  if (typeof data !== "object" || data === null) return {};
  const d = data as Record<string, unknown>;
  const usage = readUsage(d.usage);
  const lineage = readLineage(d.lineage);
  return {
    ...(typeof d.lastTurnId === "string" && d.lastTurnId ? { lastTurnId: d.lastTurnId } : {}),
    ...(Number.isInteger(d.turns) && (d.turns as number) > 0 ? { turns: d.turns as number } : {}),
    ...(usage ? { usage } : {}),
    ...(typeof d.model === "string" && d.model ? { model: d.model } : {}),
    ...(typeof d.effort === "string" && d.effort ? { effort: d.effort } : {}),
    ...(lineage ? { lineage } : {}),
    ...(isPathList(d.writableRoots) ? { writableRoots: [...d.writableRoots] } : {}),
  };
}

function isPathList(value: unknown): value is string[] {
  return Array.isArray(value) && value.length > 0 && value.every((path) => typeof path === "string" && path.startsWith("/"));
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
  const reasoningTokens = diff(total.reasoningTokens, previous.reasoningTokens);
  if ([inputTokens, outputTokens, cacheReadTokens ?? 0, cacheWriteTokens ?? 0, reasoningTokens ?? 0].some((n) => n < 0)) return undefined;
  return {
    inputTokens,
    outputTokens,
    ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}),
    ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
    ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
  };
}
