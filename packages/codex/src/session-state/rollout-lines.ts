import { homedir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { openRegularFile, SESSION_FILE_LIMIT_BYTES } from "@adaptor/driver/process";
import type { CodexConfig } from "../config.js";
import { codexEnv } from "../process-helpers.js";
import { rollouts } from "./codex-session-transfer.js";

/**
 * Calls `visit` with each parsed line of the thread's rollout files (oldest file first, in the
 * Codex home a run with `env` uses) that holds one of `markers`, read line by line up to the length
 * each file had when opened; other lines are not parsed. Resolves false when a rollout cannot be
 * read (one that is not a regular file is not read, never waited on) or one is over
 * `SESSION_FILE_LIMIT_BYTES`, true otherwise (also when there is none).
 * @throws `signal.reason` once `signal` aborts (the read ends there, its file closed).
 */
export async function eachRolloutLine(
  config: CodexConfig,
  threadId: string,
  env: Readonly<Record<string, string>> | undefined,
  markers: readonly string[],
  visit: (line: unknown) => void,
  signal?: AbortSignal,
): Promise<boolean> {
  signal?.throwIfAborted();
  const vars = codexEnv(config, env);
  const home = vars.CODEX_HOME ?? join(vars.HOME ?? homedir(), ".codex");
  for (const path of await rollouts(home, threadId)) {
    signal?.throwIfAborted();
    let opened;
    try {
      opened = await openRegularFile(path, "read", "read rollout");
    } catch {
      return false;
    }
    try {
      const size = Number(opened.stat.size);
      if (size > SESSION_FILE_LIMIT_BYTES) return false;
      if (size === 0) continue;
      const input = opened.handle.createReadStream({ encoding: "utf8", start: 0, end: size - 1, autoClose: false, signal });
      const lines = createInterface({ input, crlfDelay: Infinity, signal });
      for await (const line of lines) {
        if (signal?.aborted) break;
        if (!markers.some((marker) => line.includes(marker))) continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          continue;
        }
        visit(parsed);
      }
      signal?.throwIfAborted();
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      return false;
    } finally {
      await opened.handle.close();
    }
  }
  return true;
}
