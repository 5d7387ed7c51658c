import { checkThreadKey } from "../keys/thread-key.js";
import type { PendingApprovalDraft, StoredApprovalDecision } from "./pending-approvals.js";

// Argument checks every pending-approvals store runs first, exported so custom stores refuse bad
// input the same way.

const LONE_SURROGATE = /\p{Surrogate}/u;
const MAX_DEADLINE_MS = 2 ** 31 - 1;

/** @throws TypeError unless `id` is a non-empty, well-formed string without NUL. */
export function checkApprovalId(id: unknown, what = "approval id"): asserts id is string {
  if (typeof id !== "string" || id === "") throw new TypeError(`${what} must be a non-empty string`);
  if (id.includes("\0") || LONE_SURROGATE.test(id)) throw new TypeError(`${what} must be well-formed Unicode without NUL`);
}

function checkDate(value: unknown, what: string): void {
  if (!(value instanceof Date) || !Number.isFinite(value.getTime())) throw new TypeError(`${what} must be a valid Date`);
}

/**
 * Checks a {@link PendingApprovalDraft} before it is stored.
 * @throws TypeError for an empty id, kind or title, a bad `createdAt` / `deadline` / `deadlineMs`, an unknown
 * `onDeadline`, a malformed checkpoint reference or values that are not JSON; InvalidThreadKeyError for a bad key.
 */
export function checkPendingApprovalDraft(draft: PendingApprovalDraft): void {
  if (typeof draft !== "object" || draft === null) throw new TypeError("savePendingApproval: approval must be an object");
  checkApprovalId(draft.id, "savePendingApproval: id");
  checkThreadKey(draft.key, "savePendingApproval: key");
  if (typeof draft.kind !== "string" || draft.kind === "") throw new TypeError("savePendingApproval: kind must be a non-empty string");
  if (typeof draft.title !== "string") throw new TypeError("savePendingApproval: title must be a string");
  checkDate(draft.createdAt, "savePendingApproval: createdAt");
  if (draft.deadline !== undefined) checkDate(draft.deadline, "savePendingApproval: deadline");
  if (
    draft.deadlineMs !== undefined &&
    !(typeof draft.deadlineMs === "number" && draft.deadlineMs >= 0 && draft.deadlineMs <= MAX_DEADLINE_MS)
  ) {
    throw new TypeError(`savePendingApproval: deadlineMs must be a number in [0, ${MAX_DEADLINE_MS}], got ${String(draft.deadlineMs)}`);
  }
  if (draft.onDeadline !== "deny" && draft.onDeadline !== "abort")
    throw new TypeError(`savePendingApproval: bad onDeadline ${String(draft.onDeadline)}`);
  if (draft.checkpoint !== undefined) {
    checkApprovalId(draft.checkpoint.recordId, "savePendingApproval: checkpoint.recordId");
    if (!Number.isSafeInteger(draft.checkpoint.revision) || draft.checkpoint.revision < 1) {
      throw new TypeError("savePendingApproval: checkpoint.revision must be a positive integer");
    }
  }
  for (const field of ["input", "choices", "turn"] as const) {
    if (draft[field] === undefined) continue;
    try {
      JSON.stringify(draft[field]);
    } catch (cause) {
      throw new TypeError(`savePendingApproval: ${field} must be JSON-serialisable`, { cause });
    }
  }
}

/**
 * The deadline a store keeps for a checked draft, judged by its own clock: `now` (the store's, ms
 * since the epoch) plus the draft's `deadlineMs` when it has one, else the draft's `deadline`.
 */
export function storedDeadline(draft: PendingApprovalDraft, now: number): Date | undefined {
  return draft.deadlineMs !== undefined ? new Date(now + draft.deadlineMs) : draft.deadline;
}

/**
 * @throws TypeError unless `decision` is an approve (its `updatedInput`, when given, a plain
 * object: the tool's whole input), a deny with a string reason, or an answer with a string choice.
 */
export function checkStoredDecision(decision: StoredApprovalDecision): void {
  const d = decision as { outcome?: unknown; reason?: unknown; choice?: unknown; updatedInput?: unknown } | null;
  if (typeof d !== "object" || d === null) throw new TypeError("answerPendingApproval: decision must be an object");
  if (d.outcome === "approve") {
    if (d.updatedInput === undefined || isPlainObject(d.updatedInput)) return;
    throw new TypeError("answerPendingApproval: decision.updatedInput must be a plain object (the tool's whole input)");
  }
  if (d.outcome === "deny" && typeof d.reason === "string") return;
  if (d.outcome === "answer" && typeof d.choice === "string") return;
  if (d.outcome === "deny" || d.outcome === "answer") {
    const field = d.outcome === "deny" ? "reason" : "choice";
    const given = d[field];
    throw new TypeError(
      `answerPendingApproval: decision.${field} of ${d.outcome} must be a string, got ${given === null ? "null" : typeof given}`,
    );
  }
  throw new TypeError(`answerPendingApproval: bad decision ${JSON.stringify(d.outcome)}`);
}

function isPlainObject(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
