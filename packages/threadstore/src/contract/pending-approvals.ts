import type { Lease } from "./lease.js";
import type { ThreadStore } from "./thread-store.js";

/**
 * Where a stored approval stands:
 * - `pending`: waiting for an answer;
 * - `answered`: a host answered it (`decision` holds the answer); the turn can be resumed. It
 *   stays answered when its deadline passes: only a `pending` approval expires;
 * - `expired`: its deadline passed first; `decision` holds the recorded fallback (a deny), and
 *   `onDeadline` says whether the turn continues with that deny or is aborted;
 * - `closed`: done with (the resumed turn committed, was aborted, or the thread moved on); no
 *   longer listed.
 */
export type PendingApprovalStatus = "pending" | "answered" | "expired" | "closed";

/** A stored answer, as the CLI will be told it. */
export type StoredApprovalDecision =
  | { readonly outcome: "approve"; readonly updatedInput?: unknown }
  | { readonly outcome: "deny"; readonly reason: string }
  | { readonly outcome: "answer"; readonly choice: string };

/** The committed thread record a suspended turn started from: its `id` and `revision` at that moment. */
export interface ApprovalCheckpointRef {
  /** The record id. */
  readonly recordId: string;
  /** The record's revision when the turn started. */
  readonly revision: number;
}

/** An approval as the SDK writes it when a turn suspends (see {@link PendingApprovalStore.savePendingApproval}). */
export interface PendingApprovalDraft {
  /** Unique id (UUID v7). */
  readonly id: string;
  /** The thread key whose turn waits. */
  readonly key: string;
  /** What is asked: `permission`, `plan_review` or `question`. */
  readonly kind: string;
  /** One line for people, e.g. `"Write: /work/notes.md"`. */
  readonly title: string;
  /** The tool that wants to run, when the ask is about a tool call. */
  readonly toolName?: string;
  /** The provider's id of that tool call (changes when the turn is run again). */
  readonly toolCallId?: string;
  /** The tool input the CLI proposed (JSON). */
  readonly input?: unknown;
  /**
   * The options of a `question`, or the named answers a `permission`'s agent takes (an answer to
   * such a permission must be one of their keys).
   */
  readonly choices?: readonly { readonly key: string; readonly label: string; readonly description?: string }[];
  /** When the turn suspended (UTC). */
  readonly createdAt: Date;
  /**
   * After this instant the approval can no longer be answered; absent: no deadline. In a draft that
   * also has {@link PendingApprovalDraft.deadlineMs} this is only the suspending host's estimate: the
   * store sets the stored deadline from its own clock.
   */
  readonly deadline?: Date;
  /**
   * How long after the save the deadline falls (ms, in [0, 2^31-1]), judged by the
   * store's clock: a store that reads this stores its own now at the save plus `deadlineMs` as the
   * approval's `deadline`, so a suspending host whose clock is off does not move it. The SDK sends
   * both fields; a store made before this field keeps the draft's `deadline`. Never part of a stored
   * {@link PendingApproval}.
   */
  readonly deadlineMs?: number;
  /** The fallback recorded at the deadline: `deny` (the resumed turn gets a denial) or `abort` (the turn is not resumed). */
  readonly onDeadline: "deny" | "abort";
  /** The committed record the turn started from; absent for the first turn of a thread. */
  readonly checkpoint?: ApprovalCheckpointRef;
  /** What the SDK needs to run the turn again (JSON, SDK-owned: the prompt and the run's settings). */
  readonly turn: unknown;
}

/** A stored approval: the draft (its `deadline` the store's, without `deadlineMs`) plus where it stands. */
export interface PendingApproval extends Omit<PendingApprovalDraft, "deadlineMs"> {
  /** See {@link PendingApprovalStatus}. */
  readonly status: PendingApprovalStatus;
  /** The answer (`answered`) or the recorded fallback (`expired`); absent while `pending`. */
  readonly decision?: StoredApprovalDecision;
  /** When it was answered or expired (UTC, the store's clock); absent while `pending`. */
  readonly resolvedAt?: Date;
}

/** The reason recorded in the deny decision of an approval whose deadline passed. */
export const DEADLINE_PASSED_REASON = "the approval's deadline passed before anyone answered";

/**
 * The optional pending-approvals capability of a thread store: where a turn that waits for a
 * human parks its question, so that any host can list it, answer it and resume the turn later.
 * A store has it when it implements every method below; check with {@link supportsPendingApprovals}.
 * The conformance kit checks it when present.
 *
 * Deadlines are judged by the store's clock and applied lazily: every method that reads an
 * approval first turns each `pending` approval past its `deadline` into `expired` with its
 * fallback recorded (`decision` a deny with {@link DEADLINE_PASSED_REASON}, `resolvedAt` the
 * store's now), exactly once, so a deadline that passed while no host ran is applied at the next
 * access and never twice.
 */
export interface PendingApprovalStore {
  /**
   * Stores a new approval (status `pending`) while `lease` (on `approval.key`) is valid: the
   * check and the write are one atomic step.
   * @throws LeaseLostError when the lease is no longer valid (nothing written); TypeError for a
   * malformed draft; InvalidThreadKeyError for a bad key; an id already stored is refused (a
   * TypeError or the backend's key-constraint error) and the stored approval kept.
   */
  savePendingApproval(approval: PendingApprovalDraft, lease: Lease, signal?: AbortSignal): Promise<PendingApproval>;
  /** The key's approvals that are not `closed`, oldest first (by `createdAt`, then `id`). */
  listPendingApprovals(key: string, signal?: AbortSignal): Promise<PendingApproval[]>;
  /** One approval by id, whatever its status, or `undefined`. */
  getPendingApproval(id: string, signal?: AbortSignal): Promise<PendingApproval | undefined>;
  /**
   * Records the answer of a `pending` approval before its deadline, exactly once across every
   * host: `pending` → `answered`. Needs no lease (answering does not run the turn).
   * @throws ApprovalNotPendingError (with the status found, `"unknown"` for no such id) when it is
   * not pending: already answered, expired (its deadline passed, now or before) or closed.
   */
  answerPendingApproval(id: string, decision: StoredApprovalDecision, signal?: AbortSignal): Promise<PendingApproval>;
  /**
   * Marks an approval `closed` while `lease` (on its key) is valid. Idempotent for an approval
   * already closed.
   * @throws LeaseLostError when the lease is not valid; ApprovalNotPendingError `"unknown"` for no such id.
   */
  closePendingApproval(id: string, lease: Lease, signal?: AbortSignal): Promise<PendingApproval>;
}

/** Names of the {@link PendingApprovalStore} methods, for capability checks. */
const METHODS = [
  "savePendingApproval",
  "listPendingApprovals",
  "getPendingApproval",
  "answerPendingApproval",
  "closePendingApproval",
] as const;

/** The {@link PendingApprovalStore} operations a store's fault hooks see (`StoreFaults.beforeOperation`). */
export type PendingApprovalOperation = (typeof METHODS)[number];

/** True when `store` implements every method of {@link PendingApprovalStore}. */
export function supportsPendingApprovals(store: ThreadStore): store is ThreadStore & PendingApprovalStore {
  return METHODS.every((name) => typeof (store as unknown as Record<string, unknown>)[name] === "function");
}
