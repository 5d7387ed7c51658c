import { createHash } from "node:crypto";

/** A task as `Task.toJSON` writes it (the protocol's JSON form). */
export interface TaskJson {
  readonly id?: string;
  readonly contextId?: string;
  readonly status?: { readonly state?: string; readonly timestamp?: string } & Record<string, unknown>;
  readonly artifacts?: readonly ({ readonly artifactId?: string } & Record<string, unknown>)[];
  readonly history?: readonly ({ readonly messageId?: string } & Record<string, unknown>)[];
  readonly metadata?: Record<string, unknown>;
  readonly [field: string]: unknown;
}

/** Per unit of a task (`status`, `artifact:<id>`, `metadata:<key>`), hashes of the values it has left behind, oldest first. */
export type Superseded = Record<string, string[]>;

/** How many left-behind values of one unit are remembered. */
export const SUPERSEDED_PER_UNIT = 64;

const TERMINAL = new Set(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]);

/** JSON with object keys sorted, so that equal values hash equally whatever order a database kept them in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function hash(value: unknown): string {
  return createHash("sha256").update(canonical(value)).digest("base64url").slice(0, 22);
}

/**
 * Merges a task a writer saves into the stored one. The SDK saves whole tasks it loaded and changed
 * (load, change, save), so a writer that loaded before another's save would undo it; merging per
 * unit keeps both:
 *
 * - history: the stored messages, then the incoming ones the store does not have (by `messageId`);
 * - status, each artifact (by `artifactId`) and each metadata key: the incoming value, unless it is
 *   one this unit already had and has since left (the writer read before the newer value was
 *   written: its copy is stale), or the status would leave a terminal state;
 * - units only the store has are kept (the SDK never removes artifacts or metadata keys).
 */
export function mergeTask(stored: TaskJson, superseded: Superseded, incoming: TaskJson): { task: TaskJson; superseded: Superseded } {
  const left: Superseded = Object.fromEntries(Object.entries(superseded).map(([unit, hashes]) => [unit, [...hashes]]));
  const pick = <T>(unit: string, current: T | undefined, next: T | undefined, keep?: (current: T, next: T) => boolean): T | undefined => {
    if (next === undefined) return current;
    if (current === undefined) return next;
    const was = hash(current);
    const now = hash(next);
    if (was === now) return current;
    if ((left[unit] ?? []).includes(now)) return current;
    if (keep?.(current, next)) return current;
    const list = (left[unit] ??= []);
    list.push(was);
    if (list.length > SUPERSEDED_PER_UNIT) list.splice(0, list.length - SUPERSEDED_PER_UNIT);
    return next;
  };

  const status = pick("status", stored.status, incoming.status, (current, next) => {
    return TERMINAL.has(String(current.state)) && !TERMINAL.has(String(next.state));
  });

  const artifacts = [...(stored.artifacts ?? [])];
  for (const artifact of incoming.artifacts ?? []) {
    const index = artifacts.findIndex((candidate) => candidate.artifactId === artifact.artifactId);
    if (index === -1) artifacts.push(artifact);
    else artifacts[index] = pick(`artifact:${String(artifact.artifactId)}`, artifacts[index], artifact)!;
  }

  const history = [...(stored.history ?? [])];
  const seen = new Set(history.map((message) => message.messageId));
  for (const message of incoming.history ?? []) {
    if (seen.has(message.messageId)) continue;
    seen.add(message.messageId);
    history.push(message);
  }

  let metadata: Record<string, unknown> | undefined = stored.metadata;
  if (incoming.metadata) {
    metadata = { ...(stored.metadata ?? {}) };
    for (const [key, value] of Object.entries(incoming.metadata)) metadata[key] = pick(`metadata:${key}`, metadata[key], value);
  }

  return {
    task: {
      ...incoming,
      id: stored.id ?? incoming.id,
      contextId: stored.contextId || incoming.contextId,
      ...(status !== undefined ? { status } : {}),
      artifacts,
      history,
      ...(metadata !== undefined ? { metadata } : {}),
    },
    superseded: left,
  };
}

/** True for a terminal state's JSON name. */
export function isTerminalStateName(state: string | undefined): boolean {
  return state !== undefined && TERMINAL.has(state);
}
