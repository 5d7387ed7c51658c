import type { CodexConfig } from "../config.js";
import { eachRolloutLine } from "../session-state/rollout-lines.js";

/** Output items of a model reply as codex records them (`response_item` payload types). */
const OUTPUT_ITEMS = new Set(["message", "function_call", "custom_tool_call", "local_shell_call", "web_search_call"]);

/** Lines codex writes once a model response completed, before the next request. */
const REPLY_ENDS = new Set(["token_count", "token_usage_record"]);

interface RolloutLine {
  readonly type?: unknown;
  readonly payload?: { readonly type?: unknown; readonly role?: unknown; readonly id?: unknown; readonly call_id?: unknown };
}

/**
 * Which model reply each output item of the thread came in, by the id its turn item carries (a
 * tool call's `call_id`, a message's `id`): replies counted from 0 over the thread's rollout files.
 * Codex's turn items (`thread/turns/list`) do not say where one reply of the model ends; its
 * rollout does: after the items of each model response it writes a `token_usage_record` line and
 * a `token_count` event. An item codex recorded without an id, or a thread whose rollouts cannot
 * be read (or record no usage), is missing from the map.
 * @throws `signal.reason` once `signal` aborts (the rollouts are no longer read).
 */
export async function modelReplies(
  config: CodexConfig,
  threadId: string,
  env: Readonly<Record<string, string>> | undefined,
  signal?: AbortSignal,
): Promise<Map<string, number>> {
  const replies = new Map<string, number>();
  let reply = 0;
  let itemsSinceEnd = false;
  const read = await eachRolloutLine(
    config,
    threadId,
    env,
    ['"response_item"', '"token_count"', '"token_usage_record"'],
    (line) => {
      const { type, payload } = (line ?? {}) as RolloutLine;
      if (type === "token_usage_record" || (type === "event_msg" && REPLY_ENDS.has(payload?.type as string))) {
        if (itemsSinceEnd) reply += 1;
        itemsSinceEnd = false;
        return;
      }
      if (type !== "response_item" || !OUTPUT_ITEMS.has(payload?.type as string)) return;
      if (payload?.type === "message" && payload.role !== "assistant") return;
      const id = typeof payload?.call_id === "string" ? payload.call_id : payload?.id;
      if (typeof id !== "string" || id === "") return;
      replies.set(id, reply);
      itemsSinceEnd = true;
    },
    signal,
  );
  return read ? replies : new Map();
}
