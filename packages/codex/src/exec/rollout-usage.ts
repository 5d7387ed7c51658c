import type { Usage } from "@adaptor/driver";
import type { CodexConfig } from "../config.js";
import { eachRolloutLine } from "../session-state/rollout-lines.js";

interface TokenCountLine {
  readonly payload?: { readonly type?: unknown; readonly info?: { readonly total_token_usage?: Record<string, unknown> } | null };
}

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * The last value `pick` finds in the thread's rollout files (see {@link eachRolloutLine}).
 * Undefined when none has one or the rollouts cannot be read.
 */
async function lastInRollouts<T>(
  config: CodexConfig,
  threadId: string,
  env: Readonly<Record<string, string>> | undefined,
  marker: string,
  pick: (line: unknown) => T | undefined,
): Promise<T | undefined> {
  let last: T | undefined;
  const read = await eachRolloutLine(config, threadId, env, [marker], (line) => {
    last = pick(line) ?? last;
  });
  return read ? last : undefined;
}

/**
 * The thread's running token usage total as codex last recorded it in the thread's rollout files
 * (the last `token_count` event's `info.total_token_usage`, what `codex exec resume` reports its
 * turn's usage against); undefined when the rollouts record none or cannot be read.
 */
export function rolloutUsageTotal(
  config: CodexConfig,
  threadId: string,
  env: Readonly<Record<string, string>> | undefined,
): Promise<Usage | undefined> {
  return lastInRollouts(config, threadId, env, '"token_count"', (line): Usage | undefined => {
    const payload = (line as TokenCountLine).payload;
    const total = payload?.type === "token_count" ? payload.info?.total_token_usage : undefined;
    const inputTokens = count(total?.["input_tokens"]);
    const outputTokens = count(total?.["output_tokens"]);
    if (inputTokens === undefined || outputTokens === undefined) return undefined;
    const cached = count(total?.["cached_input_tokens"]);
    const cacheWrite = count(total?.["cache_write_input_tokens"]);
    return {
      inputTokens,
      outputTokens,
      ...(cached !== undefined ? { cacheReadTokens: cached } : {}),
      ...(cacheWrite !== undefined ? { cacheWriteTokens: cacheWrite } : {}),
    };
  });
}

/**
 * The model of the thread's last turn as codex recorded it in the thread's rollout files (the
 * last `turn_context` line's `model`; `codex exec --json` itself names no model); undefined when
 * the rollouts record none or cannot be read.
 */
export function rolloutModel(
  config: CodexConfig,
  threadId: string,
  env: Readonly<Record<string, string>> | undefined,
): Promise<string | undefined> {
  return lastInRollouts(config, threadId, env, '"turn_context"', (line) => {
    const parsed = line as { type?: unknown; payload?: { model?: unknown } } | null;
    const model = parsed?.type === "turn_context" ? parsed.payload?.model : undefined;
    return typeof model === "string" && model ? model : undefined;
  });
}
