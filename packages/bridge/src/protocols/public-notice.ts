import { redactCredentials, type AgentEvent } from "adaptor";

type NoticeEvent = Extract<AgentEvent, { type: "notice" }>;

/** How deep notice data is walked for strings to redact; deeper values are dropped (`[redacted]`). */
const MAX_DATA_DEPTH = 8;

/**
 * A `notice` event as the bridge sends it to a client: its `message` and every string in its
 * `data` go through `redactCredentials` (the redaction of the public error messages, every line
 * kept), since a driver's notices carry what a CLI or an SDK printed (stderr lines, log lines).
 * Other events are returned as they are.
 */
export function publicNotice<E extends AgentEvent>(event: E, secrets: readonly string[]): E {
  if (event.type !== "notice") return event;
  const notice: NoticeEvent = event;
  return {
    ...notice,
    ...(notice.message !== undefined ? { message: redactCredentials(notice.message, secrets) } : {}),
    ...(notice.data !== undefined ? { data: redactData(notice.data, secrets, 0) } : {}),
  } as E;
}

function redactData<T>(value: T, secrets: readonly string[], depth: number): T {
  if (typeof value === "string") return redactCredentials(value, secrets) as T;
  if (typeof value !== "object" || value === null) return value;
  if (depth >= MAX_DATA_DEPTH) return "[redacted]" as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactData(item, secrets, depth + 1)) as T;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactData(item, secrets, depth + 1)])) as T;
}
