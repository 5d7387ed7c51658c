import { createReadStream } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Usage } from "@adaptor/driver";
import type { CodexConfig } from "../config.js";
import { codexEnv } from "../process-helpers.js";
import { rollouts } from "../session-state/codex-session-transfer.js";

interface TokenCountLine {
  readonly payload?: { readonly type?: unknown; readonly info?: { readonly total_token_usage?: Record<string, unknown> } | null };
}

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * The thread's running token usage total as codex last recorded it in the thread's rollout files
 * (the last `token_count` event's `info.total_token_usage`, what `codex exec resume` reports its
 * turn's usage against); undefined when the rollouts record none or cannot be read. Read line by
 * line; only lines naming `token_count` are parsed.
 */
export async function rolloutUsageTotal(
  config: CodexConfig,
  threadId: string,
  env: Readonly<Record<string, string>> | undefined,
): Promise<Usage | undefined> {
  const vars = codexEnv(config, env);
  const home = vars.CODEX_HOME ?? join(vars.HOME ?? homedir(), ".codex");
  let last: Usage | undefined;
  for (const path of await rollouts(home, threadId)) {
    try {
      const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
      for await (const line of lines) {
        if (!line.includes('"token_count"')) continue;
        let parsed: TokenCountLine;
        try {
          parsed = JSON.parse(line) as TokenCountLine;
        } catch {
          continue;
        }
        const total = parsed.payload?.type === "token_count" ? parsed.payload.info?.total_token_usage : undefined;
        const inputTokens = count(total?.["input_tokens"]);
        const outputTokens = count(total?.["output_tokens"]);
        if (inputTokens === undefined || outputTokens === undefined) continue;
        const cached = count(total?.["cached_input_tokens"]);
        const cacheWrite = count(total?.["cache_write_input_tokens"]);
        last = {
          inputTokens,
          outputTokens,
          ...(cached !== undefined ? { cacheReadTokens: cached } : {}),
          ...(cacheWrite !== undefined ? { cacheWriteTokens: cacheWrite } : {}),
        };
      }
    } catch {
      return undefined;
    }
  }
  return last;
}
