import { homedir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Usage } from "@adaptor/driver";
import { openRegularFile, SESSION_FILE_LIMIT_BYTES } from "@adaptor/driver/process";
import type { CodexConfig } from "../config.js";
import { codexEnv } from "../process-helpers.js";
import { rollouts } from "../session-state/codex-session-transfer.js";

interface TokenCountLine {
  readonly payload?: { readonly type?: unknown; readonly info?: { readonly total_token_usage?: Record<string, unknown> } | null };
}

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * The last value `pick` finds in the thread's rollout files, read line by line up to the length
 * each had when opened: only lines holding `marker` are parsed. Undefined when none has one or the
 * rollouts cannot be read (one that is not a regular file is not read, never waited on) or one is
 * over `SESSION_FILE_LIMIT_BYTES`.
 */
async function lastInRollouts<T>(
  config: CodexConfig,
  threadId: string,
  env: Readonly<Record<string, string>> | undefined,
  marker: string,
  pick: (line: unknown) => T | undefined,
): Promise<T | undefined> {
  const vars = codexEnv(config, env);
  const home = vars.CODEX_HOME ?? join(vars.HOME ?? homedir(), ".codex");
  let last: T | undefined;
  for (const path of await rollouts(home, threadId)) {
    let opened;
    try {
      opened = await openRegularFile(path, "read", "read rollout");
    } catch {
      return undefined;
    }
    try {
      const size = Number(opened.stat.size);
      if (size > SESSION_FILE_LIMIT_BYTES) return undefined;
      if (size === 0) continue;
      const input = opened.handle.createReadStream({ encoding: "utf8", start: 0, end: size - 1, autoClose: false });
      const lines = createInterface({ input, crlfDelay: Infinity });
      for await (const line of lines) {
        if (!line.includes(marker)) continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          continue;
        }
        last = pick(parsed) ?? last;
      }
    } catch {
      return undefined;
    } finally {
      await opened.handle.close();
    }
  }
  return last;
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
