import type { ApprovalDecision } from "@adaptor/driver";
import { checkThreadKey, type DeletedThread, type PendingApproval, type ThreadRecord } from "@adaptor/threadstore";
import type { Result } from "../result/result.js";
import type { RunOptions } from "../options/run-options.js";
import type { Stream } from "../run/stream.js";
import type { Prompt } from "../prompt/prompt.js";
import type { ResumeSpec, ThreadMode } from "../thread/thread-context.js";
import type { FileCheckpointOptions } from "../file-checkpoints/file-checkpoint-options.js";
import type { CheckpointedTurn } from "../file-checkpoints/turn-files.js";
import type { RewindResult } from "../file-checkpoints/rewind.js";
import { checkForkPoint, type ForkOptions, type ForkPoint } from "../thread/turn-log.js";

/** Where a thread's file checkpoints are: defaults are the Agent's options. */
export interface FileCheckpointScope {
  /** The workspace the turns ran in. Default: the Agent's `cwd`. */
  readonly cwd?: string;
  /** The file checkpoint settings the turns ran with. Default: the Agent's `checkpointFiles`, else `true`. */
  readonly checkpointFiles?: true | FileCheckpointOptions;
  /** Aborts the operation; a rewind follows it only until it starts restoring files. */
  readonly signal?: AbortSignal;
}

/** How a Thread reaches its Agent (internal). */
export interface ThreadHost {
  /** `eventsDrained`: the caller drains the events unread (`run()`), so nobody answers an `approval-request` event. */
  streamThread(
    key: string,
    mode: ThreadMode,
    /** The parent key of a fork; the CLI's session id of an adoption; else undefined. */
    from: string | undefined,
    prompt: Prompt,
    options: RunOptions,
    eventsDrained: boolean,
    resume?: ResumeSpec,
    /** The parent's turn a fork branches at; absent: its latest. */
    forkAt?: ForkPoint,
  ): Stream;
  checkpoint(key: string, signal?: AbortSignal): Promise<ThreadRecord | undefined>;
  pendingApprovals(key: string, signal?: AbortSignal): Promise<PendingApproval[]>;
  deleteThread(key: string, signal?: AbortSignal): Promise<DeletedThread>;
  history(key: string, scope: FileCheckpointScope): Promise<CheckpointedTurn[]>;
  rewind(key: string, runId: string, scope: FileCheckpointScope): Promise<RewindResult>;
}

/**
 * A durable conversation under a key. Runs have the Agent's
 * verdict; each takes the key's lease first (`ErrThreadBusy` when another owner holds it) and
 * persists the new checkpoint only after a healthy run.
 */
export class Thread {
  /** The host's key for this conversation. */
  readonly key: string;
  readonly #host: ThreadHost;
  #mode: ThreadMode;
  /** The parent key of a fork, the CLI's session id of an adoption. */
  readonly #from: string | undefined;
  /** The parent's turn a fork branches at; absent: its latest. */
  readonly #forkAt: ForkPoint | undefined;

  /**
   * @internal Made by `agent.thread()`, `agent.newThread()` and `thread.fork()`; checks the key
   * rules (`checkThreadKey`) before any store or CLI is touched.
   * @throws TypeError for an empty or non-string key; InvalidThreadKeyError for a key that breaks the
   * key rules (see `checkThreadKey`).
   */
  constructor(host: ThreadHost, key: string, mode: ThreadMode, from?: string, forkAt?: ForkPoint) {
    checkThreadKey(key);
    this.#host = host;
    this.key = key;
    this.#mode = mode;
    this.#from = from;
    this.#forkAt = forkAt;
  }

  /** Starts a turn; see `Agent.stream`. Never throws. */
  stream(prompt: Prompt, options: RunOptions = {}): Stream {
    return this.#stream(prompt, options, false);
  }

  #stream(prompt: Prompt, options: RunOptions, eventsDrained: boolean): Stream {
    const forkAt = this.#mode === "fork" ? this.#forkAt : undefined;
    const stream = this.#host.streamThread(this.key, this.#mode, this.#from, prompt, options, eventsDrained, undefined, forkAt);
    // After the first turn of a new thread, a fork or an adoption, later turns continue the conversation.
    if (this.#mode === "start_new" || this.#mode === "fork" || this.#mode === "adopt") {
      stream.result().then(
        () => (this.#mode = "continue_or_start"),
        () => undefined,
      );
    }
    return stream;
  }

  /**
   * `stream()` drained: resolves the Result or rejects with the verdict. As with `Agent.run`, an
   * approval in `ask` mode without `onApproval` ends the run at once (`RunError` `approval_denied`, `details.unanswerable`).
   */
  async run(prompt: Prompt, options: RunOptions = {}): Promise<Result> {
    const stream = this.#stream(prompt, options, true);
    for await (const _event of stream) {
      // drained; the verdict comes from result()
    }
    return stream.result();
  }

  /** Deletes this thread from the store: see `Agent.deleteThread`. */
  delete(signal?: AbortSignal): Promise<DeletedThread> {
    return this.#host.deleteThread(this.key, signal);
  }

  /**
   * A new thread under `newKey` that branches from this thread's checkpoint on its first run; this
   * thread is untouched. The first run fails with `ErrThreadNotFound` (no parent record) or
   * `ErrThreadAlreadyExists` (`newKey` taken); on a driver whose descriptor has no `sessions.fork`
   * (Codex exec, Cursor, most ACP agents) with `FeatureUnsupportedError` (feature `fork`) before
   * the store or the CLI is touched.
   *
   * `at` branches at an earlier turn instead: the fork's first run sees this thread's conversation
   * through that turn and none of the later ones. Name the turn by its position among this thread's
   * committed turns (`1` for the first; a fork counts the turns it inherited) or by the `runId` of
   * the run that committed it (`result.runId`). It needs a driver that resumes at an earlier
   * checkpoint (`sessions.fromCheckpoint`: Claude, Codex app-server) and portable sessions (a store
   * with session state: the turns are kept with the stored session files), else the first run fails
   * with `FeatureUnsupportedError` (feature `fork`) before the store or the CLI is touched. A turn
   * this thread does not have fails the first run with `InvalidOptionError` (field `at`) before the
   * CLI starts: a number past its last turn, a run id of no committed turn of its current
   * conversation (a turn undone by `rewind()`, or of a conversation a `newThread()` replaced), a
   * number when its turns are known only from some turn on (an adopted session), or any `at` when
   * its last turn was committed without its session files.
   * @throws TypeError for an empty key; InvalidThreadKeyError (`ErrInvalidThreadKey`) for a key
   * that breaks the key rules (lone surrogate, whitespace only, a control or bidi control character,
   * over 1024 bytes of UTF-8); InvalidOptionError (subject `"thread.fork()"`, field `at`) for an
   * `at` that is neither a positive integer nor a non-empty string.
   */
  fork(newKey: string, options: ForkOptions = {}): Thread {
    if (options.at !== undefined) checkForkPoint(options.at);
    return new Thread(this.#host, newKey, "fork", this.key, options.at);
  }

  /**
   * The approvals this thread's suspended turns wait for (turns run with the `suspend` option),
   * oldest first: `pending` ones, `answered` ones whose turn has not completed yet, and `expired`
   * ones (their deadline passed: the store recorded the fallback at this access if no host was
   * running at that moment). Any host sharing the store sees them.
   * @param signal - ends the wait: rejects with its abort reason even while the store has not answered.
   * @throws ErrThreadStoreRequired without a store; SuspendUnsupportedError for a store without
   * the pending-approvals capability; the store's errors; InvalidOptionError (subject
   * `"thread store listPendingApprovals() answer"`, `field` naming the first bad one, e.g. `[1].key`)
   * for a malformed answer from a custom store.
   */
  pendingApprovals(signal?: AbortSignal): Promise<PendingApproval[]> {
    return this.#host.pendingApprovals(this.key, signal);
  }

  /**
   * Answers a stored approval and resumes its turn on this host: records `decision` (exactly
   * once across every host), takes the lease, and runs the turn again from the checkpoint it
   * started from, with its own prompt and this call's options. When the CLI asks again for the
   * same tool with the same input, the stored answer is applied without asking anyone (a `notice`
   * `approval.replayed`); anything new is asked as usual (or suspends again, with `suspend`). The
   * verdict is the resumed turn's, as for `run()`: its events are drained, so pass `onApproval`
   * (or `suspend`) for new asks, or use {@link streamAnswer}.
   *
   * The turn's model call is made again from the checkpoint, so it costs what the original turn
   * cost up to the question (tokens, time), and a model that does not repeat the same tool call
   * gets no use of the answer.
   *
   * Rejects with `ApprovalNotPendingError` (`ErrApprovalNotPending`) when the approval is not
   * pending: already answered (use {@link resume}), expired (its deadline passed), closed, unknown
   * to this thread, or the thread's record changed since the turn suspended (then it is closed);
   * `ErrThreadBusy` while another host runs a turn on the key (nothing is recorded);
   * `ErrApprovalKindMismatch` for a decision that does not fit the approval's kind (approve on a
   * `question`, answer on a `plan_review` or on a `permission` without `choices`; nothing is
   * recorded); `InvalidOptionError` (field `choice`) for an answer the stored permission's
   * `choices` do not list (nothing is recorded); `SuspendUnsupportedError` for a
   * store without the capability; `FeatureUnsupportedError` (feature `resume`) when the turn
   * continues the thread's stored conversation and the driver does not declare `sessions.resume`
   * (the resumed turn runs in a new process, which would lose the history; nothing is recorded,
   * no lease taken); else as `run()`.
   */
  answer(approvalId: string, decision: ApprovalDecision, options: RunOptions = {}): Promise<Result> {
    return drain(this.#host.streamThread(this.key, "continue_or_start", undefined, "", options, true, { approvalId, decision }));
  }

  /** {@link answer} with the resumed turn's events: see `Agent.stream`. Never throws. */
  streamAnswer(approvalId: string, decision: ApprovalDecision, options: RunOptions = {}): Stream {
    return this.#host.streamThread(this.key, "continue_or_start", undefined, "", options, false, { approvalId, decision });
  }

  /**
   * Resumes the turn of an approval that already has its decision: `answered` (e.g. the resumed
   * turn failed, or its host stopped before running it) or `expired` with the `deny` fallback
   * (the turn continues with the denial). Otherwise as {@link answer}; `ApprovalNotPendingError`
   * for one still `pending` (answer it first), `closed`, or expired with the `abort` fallback
   * (then it is closed).
   */
  resume(approvalId: string, options: RunOptions = {}): Promise<Result> {
    return drain(this.#host.streamThread(this.key, "continue_or_start", undefined, "", options, true, { approvalId }));
  }

  /** {@link resume} with the resumed turn's events: see `Agent.stream`. Never throws. */
  streamResume(approvalId: string, options: RunOptions = {}): Stream {
    return this.#host.streamThread(this.key, "continue_or_start", undefined, "", options, false, { approvalId });
  }

  /**
   * The turns of this thread that ran with `checkpointFiles` and committed, oldest first: the
   * points {@link rewind} can go back to. Read from this host's checkpoint directory (file
   * snapshots belong to the workspace they were taken in); `[]` when there are none.
   * @throws FileCheckpointError `git_missing`, `cwd_required`, `inside_workspace`, `git_failed`.
   */
  history(scope: FileCheckpointScope = {}): Promise<CheckpointedTurn[]> {
    return this.#host.history(this.key, scope);
  }

  /**
   * Undoes the turn `runId` (its `result.runId`, see {@link history}) and every later one. Under
   * the thread's lease, the files the undone turns changed (created, wrote, deleted, or changed the
   * mode of: their snapshot before each turn against the one when it ended) are put back byte for
   * byte as they were before turn `runId`: written back, or removed when they did not exist then.
   * Every other file is left as it is, among them files the person created or edited between turns
   * or after the last one. A path the undone turns changed that was changed again after the
   * thread's last turn ended is left as it is now and listed in `kept`. Ignored files and files
   * over the size cap are never touched. The conversation's checkpoint goes back to the one that
   * turn started from: the next turn resumes there, and the model sees nothing of the undone turns
   * (the drivers drop what the CLI recorded after the checkpoint). Undoing the conversation's first
   * turn leaves the thread with no conversation (its record is archived; `record` is `undefined`):
   * its next turn starts a fresh session. Resolves what was restored and kept, and the record now
   * active.
   * @throws ErrThreadStoreRequired without a store; ErrThreadBusy while a turn runs;
   * InvalidOptionError (subject `"thread.rewind()"`, field `runId`) for a `runId` that is not a
   * UUID (no run has one), before the lease is taken; FeatureUnsupportedError (feature `checkpointFiles`) for a driver that cannot resume from an
   * earlier checkpoint (ACP agents);
   * FileCheckpointError: `turn_not_found`, `diverged` (the record moved on without checkpointed
   * turns), and those of {@link history} (nothing changed); `store_failed` (the files were
   * restored, the checkpoint not); `history_failed` (the files and the checkpoint were restored,
   * but the undone turns stayed in the file history: a later rewind is `diverged`);
   * InvalidOptionError (subject `"thread store <method>() answer"`) for a malformed lease or record
   * from the store; `scope.signal`'s abort reason when it aborts before the restore starts, even
   * while a store call has not answered (a lease granted after that is given back).
   */
  rewind(runId: string, scope: FileCheckpointScope = {}): Promise<RewindResult> {
    return this.#host.rewind(this.key, runId, scope);
  }

  /**
   * The active record of this key (diagnostic), or `undefined`.
   * @param signal - ends the wait: rejects with its abort reason even while the store has not answered.
   * @throws ErrThreadStoreRequired without a store; InvalidOptionError (subject
   * `"thread store resolve() answer"`) for a malformed record; the store's errors.
   */
  checkpoint(signal?: AbortSignal): Promise<ThreadRecord | undefined> {
    return this.#host.checkpoint(this.key, signal);
  }
}

/** Drains a stream's events and returns its verdict. */
async function drain(stream: Stream): Promise<Result> {
  for await (const _event of stream) {
    // drained; the verdict comes from result()
  }
  return stream.result();
}
