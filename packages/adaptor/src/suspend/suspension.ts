import { FeatureUnsupportedError, type ApprovalAsk, type ApprovalDecision, type DriverDescriptor } from "@adaptor/driver";
import { AdaptorError, InvalidOptionError } from "@adaptor/errors";
import {
  ApprovalNotPendingError,
  supportsPendingApprovals,
  type Lease,
  type PendingApproval,
  type PendingApprovalStore,
  type ThreadRecord,
  type ThreadStore,
} from "@adaptor/threadstore";
import { decisionMismatch, updatedInputError } from "../approval/approval-request.js";
import { SuspendUnsupportedError } from "../errors/suspend-unsupported-error.js";
import { storeCall } from "../thread/store-calls.js";
import type { RunOptions } from "../options/run-options.js";
import type { ResumeSpec, ThreadContext, ThreadMode } from "../thread/thread-context.js";
import { readTurnData, type StoredAnswer, type TurnData } from "./turn-data.js";

/** The `suspend` option with its defaults applied. */
export interface SuspendSettings {
  /** ms from suspension to the deadline; undefined: none. */
  readonly deadlineMs: number | undefined;
  readonly onDeadline: "deny" | "abort";
}

/** The store of `ctx`, when it has the pending-approvals capability. @throws SuspendUnsupportedError otherwise. */
export function pendingStore(store: ThreadStore): ThreadStore & PendingApprovalStore {
  if (!supportsPendingApprovals(store)) {
    throw new SuspendUnsupportedError(
      "store",
      "this thread store has no pending-approvals capability (savePendingApproval, listPendingApprovals, ...), so a turn cannot suspend on it; " +
        "use MemoryThreadStore, SqliteThreadStore or PostgresThreadStore, or implement PendingApprovalStore",
    );
  }
  return store;
}

/**
 * The run's suspend settings, checked before anything starts.
 * @throws InvalidOptionError (field `suspend`) for a run that is not a thread turn;
 * SuspendUnsupportedError for a store without the capability, a fork's first turn, an adopting turn
 * or `policy.approvals.elicitation` `ask` (reason `elicitation`: a stored approval keeps no form
 * schema or URL, so an MCP server's elicitation cannot wait in the store).
 */
export function checkSuspend(options: RunOptions, thread: ThreadContext | undefined): SuspendSettings | undefined {
  const value = options.suspend;
  if (value === undefined) return undefined;
  if (!thread) {
    throw new InvalidOptionError({
      subject: "run options",
      field: "suspend",
      reason: "only thread turns can suspend (agent.thread(key).run(prompt, { suspend: {} }))",
    });
  }
  if (thread.mode === "fork")
    throw new SuspendUnsupportedError("fork", "a fork's first turn cannot suspend; run it without `suspend`, then suspend later turns");
  if (thread.mode === "adopt")
    throw new SuspendUnsupportedError(
      "adopt",
      "a turn that adopts a CLI session cannot suspend; run it without `suspend`, then suspend later turns (agent.thread(key))",
    );
  if (options.policy?.approvals?.elicitation === "ask")
    throw new SuspendUnsupportedError(
      "elicitation",
      'a turn with approvals.elicitation "ask" cannot suspend (a stored approval keeps no form schema or URL); run it without `suspend`, or leave elicitations to auto_deny',
    );
  pendingStore(thread.store);
  const deadlineMs = value.deadlineMs === undefined || value.deadlineMs === Infinity ? undefined : value.deadlineMs;
  return { deadlineMs, onDeadline: value.onDeadline ?? "abort" };
}

/** The exact committed version a turn starts from (`undefined` for a key without a record). */
function refOf(record: ThreadRecord | undefined): PendingApproval["checkpoint"] {
  return record ? { recordId: record.id, revision: record.revision } : undefined;
}

/**
 * Stores the approval `ask` of a suspending turn under the turn's lease, as approval `id` (the id
 * the run's `approval.*` notices gave it), never waiting past `signal`'s abort (the run's end): an
 * approval the store saves after that is closed at once (while the lease allows), not left asking.
 * @throws LeaseLostError (the lease was lost: nothing stored); the store's errors; the abort's
 * verdict (see `storeCall`).
 */
export async function saveSuspension(init: {
  readonly id: string;
  readonly store: ThreadStore;
  readonly lease: Lease;
  readonly key: string;
  readonly ask: ApprovalAsk;
  readonly startedFrom: ThreadRecord | undefined;
  readonly settings: SuspendSettings;
  readonly turn: TurnData;
  readonly signal: AbortSignal;
}): Promise<PendingApproval> {
  const { ask, settings } = init;
  const createdAt = new Date();
  const checkpoint = refOf(init.startedFrom);
  const store = pendingStore(init.store);
  const saved = store.savePendingApproval(
    {
      id: init.id,
      key: init.key,
      kind: ask.kind,
      title: ask.title,
      ...(ask.toolName !== undefined ? { toolName: ask.toolName } : {}),
      ...(ask.toolCallId !== undefined ? { toolCallId: ask.toolCallId } : {}),
      ...(ask.input !== undefined ? { input: ask.input } : {}),
      ...(ask.choices !== undefined ? { choices: ask.choices } : {}),
      createdAt,
      // The store sets the deadline from its own clock (deadlineMs); `deadline` is this host's estimate.
      ...(settings.deadlineMs !== undefined
        ? { deadline: new Date(createdAt.getTime() + settings.deadlineMs), deadlineMs: settings.deadlineMs }
        : {}),
      onDeadline: settings.onDeadline,
      ...(checkpoint ? { checkpoint } : {}),
      turn: init.turn,
    },
    init.lease,
    init.signal,
  );
  return storeCall("savePendingApproval", init.signal, saved, () => {
    store.closePendingApproval(init.id, init.lease).catch(() => undefined);
  });
}

/**
 * Reads the stored turn of an approval before the resumed run starts (its prompt and mode), without
 * a lease: the checks that count run again under the lease in {@link claimResume}. A `decision`
 * that does not fit the approval's kind is refused here, before anything is recorded.
 * @throws ApprovalNotPendingError (`unknown`) for an id the key does not have; SuspendUnsupportedError;
 * `ErrApprovalKindMismatch` (approve on a `question`, answer on a `plan_review` or on a
 * `permission` without choices); `InvalidOptionError` (field `choice`) for an answer the stored
 * permission's choices do not list, or (field `updatedInput`) an edited input that is not a plain
 * object; the store's errors; the verdict of `signal`'s abort (the run's end) while the store has
 * not answered (see `storeCall`: a run's `timeoutMs` names `threadStore.getPendingApproval`).
 */
export async function loadResumeTurn(
  store: ThreadStore,
  key: string,
  spec: ResumeSpec,
  signal: AbortSignal,
): Promise<{ turn: TurnData; checkpoint: PendingApproval["checkpoint"] }> {
  const { approvalId, decision } = spec;
  const approval = await storeCall("getPendingApproval", signal, pendingStore(store).getPendingApproval(approvalId, signal));
  if (!approval || approval.key !== key) throw new ApprovalNotPendingError(approvalId, "unknown", `thread ${key} has no such approval`);
  const mismatch = decision ? decisionMismatch({ ...approval, id: approvalId }, decision, "resume decision") : undefined;
  if (mismatch) throw mismatch;
  const edit = decision?.outcome === "approve" ? decision.updatedInput : undefined;
  const invalid = edit === undefined ? undefined : updatedInputError(edit, "resume decision");
  if (invalid) throw invalid;
  return { turn: readTurnData(approval.turn, approvalId), checkpoint: approval.checkpoint };
}

/**
 * Whether a turn in `mode` that starts from the committed record `checkpoint` continues that
 * record's conversation (rather than starting a new one, or having none to continue).
 */
export function continuesHistory(mode: ThreadMode, checkpoint: PendingApproval["checkpoint"] | ThreadRecord | undefined): boolean {
  return checkpoint !== undefined && (mode === "continue_or_start" || mode === "resume_only");
}

/**
 * Refuses to suspend or resume a turn that continues the thread's stored conversation on a driver
 * whose CLI cannot continue a session in a new process (no `sessions.resume`): the resumed turn
 * always runs in a new process, which would start a fresh conversation and lose the history.
 * @throws FeatureUnsupportedError: feature `resume` (resuming such a turn) or `suspend` (a run
 * with `suspend` whose turn continues a stored conversation).
 */
export function checkResumable(descriptor: DriverDescriptor, feature: "resume" | "suspend"): void {
  if (descriptor.capabilities.sessions.resume === true) return;
  throw new FeatureUnsupportedError(
    descriptor.type,
    feature,
    feature === "resume"
      ? "the suspended turn continues the thread's stored conversation, and its CLI cannot continue a session in a new process, so the resumed turn would lose the history; run a new turn instead"
      : "the turn continues the thread's stored conversation, and its CLI cannot continue a session in a new process, so a suspended turn could never be resumed with its history; run it without `suspend` (answer through `onApproval`)",
  );
}

/**
 * Under the resumed turn's lease: records the answer (when one is given), checks that the
 * approval can continue the turn, and returns the answers the turn applies without asking.
 * An approval that can never continue (its deadline fallback aborts, or the thread moved on since
 * it was asked) is closed on the way.
 * @throws ApprovalNotPendingError: already answered or expired (with a `decision`), still pending
 * (without one), closed, expired with the `abort` fallback, or the thread's record changed since
 * the turn suspended (status `closed`); the store's errors; the verdict of `signal`'s abort (the
 * run's end) while a store call has not answered (see `storeCall`; an answer left behind may
 * still be recorded, and the approval then stays answered for a later resume).
 */
export async function claimResume(init: {
  readonly store: ThreadStore;
  readonly lease: Lease;
  readonly key: string;
  readonly spec: ResumeSpec;
  readonly current: ThreadRecord | undefined;
  readonly signal: AbortSignal;
}): Promise<{ approval: PendingApproval; answers: readonly StoredAnswer[] }> {
  const { lease, key, spec, signal } = init;
  const store = pendingStore(init.store);
  const id = spec.approvalId;
  let approval = spec.decision
    ? await storeCall("answerPendingApproval", signal, store.answerPendingApproval(id, spec.decision, signal))
    : await storeCall("getPendingApproval", signal, store.getPendingApproval(id, signal));
  if (!approval || approval.key !== key) throw new ApprovalNotPendingError(id, "unknown", `thread ${key} has no such approval`);
  if (approval.status === "pending") throw new ApprovalNotPendingError(id, "pending", "answer it first (thread.answer)");
  if (approval.status === "closed") throw new ApprovalNotPendingError(id, "closed");
  if (approval.status === "expired" && approval.onDeadline === "abort") {
    await storeCall("closePendingApproval", signal, store.closePendingApproval(id, lease, signal));
    throw new ApprovalNotPendingError(id, "expired", "its deadline passed and its fallback aborts the turn");
  }
  const started = approval.checkpoint;
  const now = refOf(init.current);
  if (started?.recordId !== now?.recordId || started?.revision !== now?.revision) {
    await storeCall("closePendingApproval", signal, store.closePendingApproval(id, lease, signal));
    throw new ApprovalNotPendingError(id, "closed", `thread ${key} moved on since the turn suspended; run a new turn instead`);
  }
  const turn = readTurnData(approval.turn, id);
  const decision = approval.decision as ApprovalDecision;
  approval = { ...approval };
  return {
    approval,
    answers: [
      ...turn.answers,
      {
        kind: approval.kind,
        ...(approval.toolName !== undefined ? { toolName: approval.toolName } : {}),
        ...(approval.input !== undefined ? { input: approval.input } : {}),
        ...(turn.cwd !== undefined ? { cwd: turn.cwd } : {}),
        decision,
      },
    ],
  };
}

/** A stop of the run by the SDK because the turn suspended (the abort reason; never a verdict). */
export class SuspendStop extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.internal.SuspendStop");
}
