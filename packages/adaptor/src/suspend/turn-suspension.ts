import { SuspendUnsupportedError } from "../errors/suspend-unsupported-error.js";
import type { ApprovalAsk, DriverDescriptor } from "@adaptor/driver";
import { AdaptorError } from "@adaptor/errors";
import type { PendingApproval } from "@adaptor/threadstore";
import type { EventQueue } from "../events/event-queue.js";
import type { RunOptions } from "../options/run-options.js";
import type { ThreadContext } from "../thread/thread-context.js";
import type { ThreadTurn } from "../thread/thread-turn.js";
import {
  checkResumable,
  checkSuspend,
  claimResume,
  continuesHistory,
  loadResumeTurn,
  pendingStore,
  saveSuspension,
  SuspendStop,
  type SuspendSettings,
} from "./suspension.js";
import { StoredAnswers, type StoredAnswer } from "./turn-data.js";
import { storeCall } from "../thread/store-calls.js";

/**
 * The suspend/resume side of one run (docs/suspend.md): built before the run prepares, it gives
 * the approval broker the stored answers to apply and the function that suspends; the run calls
 * {@link begin} once the thread's lease is held, {@link committed} after the commit, and reads
 * {@link suspendedOn} for the verdict. For a run without `suspend` that resumes nothing it does nothing.
 */
export class TurnSuspension {
  /** The thread context the run uses (a resumed turn takes its stored mode). */
  readonly thread: ThreadContext | undefined;
  /** The prompt the run uses (a resumed turn's own). */
  readonly prompt: string;
  /** Answers the broker applies without asking (filled by {@link begin} for a resumed turn). */
  readonly replay = new StoredAnswers();
  readonly #settings: SuspendSettings | undefined;
  readonly #queue: EventQueue;
  readonly #controller: AbortController;
  #turn: ThreadTurn | undefined;
  #resumed: PendingApproval | undefined;
  #answers: readonly StoredAnswer[] = [];
  #suspending = false;
  #suspendedOn: PendingApproval | undefined;
  #unanswered: unknown;
  /** The run's working directory (its request's `cwd`), when the SDK knows it. */
  #cwd: string | undefined;
  readonly #descriptor: DriverDescriptor;

  private constructor(init: {
    thread: ThreadContext | undefined;
    prompt: string;
    settings: SuspendSettings | undefined;
    queue: EventQueue;
    controller: AbortController;
    descriptor: DriverDescriptor;
  }) {
    this.#descriptor = init.descriptor;
    this.thread = init.thread;
    this.prompt = init.prompt;
    this.#settings = init.settings;
    this.#queue = init.queue;
    this.#controller = init.controller;
  }

  /**
   * Reads a resumed turn's prompt and mode, and checks the `suspend` option, before anything starts.
   * @throws InvalidOptionError, SuspendUnsupportedError (see `checkSuspend`); ApprovalNotPendingError
   * for an approval the thread does not have; `ErrApprovalKindMismatch` for a decision that does not
   * fit its kind, `InvalidOptionError` (field `choice`) for a choice its permission does not list; the store's errors; SuspendUnsupportedError (`images`) for a prompt with images
   * (a stored turn keeps its prompt's text only); FeatureUnsupportedError (feature `resume`) for
   * resuming a turn that continues the thread's stored conversation on a driver without
   * `sessions.resume` (before any lease or write: the approval stays as it is).
   */
  static async prepare(init: {
    thread: ThreadContext | undefined;
    prompt: string;
    /** How many images the prompt carries. */
    images: number;
    options: RunOptions;
    queue: EventQueue;
    controller: AbortController;
    /** The run's driver: whether its CLI can continue a session in a new process. */
    descriptor: DriverDescriptor;
  }): Promise<TurnSuspension> {
    let { thread, prompt } = init;
    if (thread?.resume) {
      // The turn runs again with its own prompt and mode; the checks that count run under the lease.
      const { turn: stored, checkpoint } = await loadResumeTurn(thread.store, thread.key, thread.resume, init.controller.signal);
      // The resumed turn runs in a new process: continuing its history needs a CLI that resumes there.
      if (continuesHistory(stored.mode, checkpoint)) checkResumable(init.descriptor, "resume");
      prompt = stored.prompt;
      thread = { ...thread, mode: stored.mode };
    }
    const settings = checkSuspend(init.options, thread);
    if (settings && init.images > 0)
      throw new SuspendUnsupportedError(
        "images",
        "a turn whose prompt has images cannot suspend (its stored turn keeps text only); run it without `suspend`",
      );
    return new TurnSuspension({ thread, prompt, settings, queue: init.queue, controller: init.controller, descriptor: init.descriptor });
  }

  /** The approval this turn stored when it suspended; undefined while it has not. */
  /** Whether {@link committed} still needs the turn's lease (it closes a resumed approval under it). */
  get needsLeaseAfterCommit(): boolean {
    return this.#resumed !== undefined;
  }

  get suspendedOn(): PendingApproval | undefined {
    return this.#suspendedOn;
  }

  /**
   * The verdict of a store call this turn's suspension was waiting on when the run ended (a
   * `timeoutMs` expiry: a `DriverError` `TIMEOUT` naming `threadStore.<method>`, see `storeCall`);
   * undefined when none was left unanswered. The run's verdict, in place of the bare expiry.
   */
  get unansweredStoreCall(): unknown {
    return this.#unanswered;
  }

  /** For the broker: suspends instead of asking, when the run has `suspend`. */
  get suspender(): ((ask: ApprovalAsk, id: string) => Promise<void>) | undefined {
    return this.#settings ? (ask, id) => this.#suspend(ask, id) : undefined;
  }

  /**
   * Under the turn's lease: for a resumed turn, records or checks the approval's decision and
   * loads the answers to apply again (see `claimResume`). `cwd` is the run's working directory
   * (the request's), when known: stored with a suspension, and what resumed asks are matched in.
   * @throws FeatureUnsupportedError (feature `suspend`): a run with `suspend` whose turn continues
   * the thread's stored conversation on a driver without `sessions.resume` (nothing written yet);
   * ApprovalNotPendingError; the store's errors.
   */
  async begin(turn: ThreadTurn, cwd?: string): Promise<void> {
    this.#turn = turn;
    this.#cwd = cwd;
    const thread = this.thread;
    // Its resume would run in a new process, which cannot continue the history: refused now.
    if (this.#settings && thread && !thread.resume && continuesHistory(thread.mode, turn.startedFrom))
      checkResumable(this.#descriptor, "suspend");
    if (!thread?.resume) return;
    const claimed = await claimResume({
      store: thread.store,
      lease: turn.lease,
      key: thread.key,
      spec: thread.resume,
      current: turn.startedFrom,
      signal: this.#controller.signal,
    });
    this.#resumed = claimed.approval;
    this.#answers = claimed.answers;
    this.replay.add(claimed.answers, cwd);
  }

  /**
   * After the turn committed: closes the approval it resumed, never waiting past the run's end (its
   * signal, `timeoutMs`). Never throws: closing is not atomic with the commit, and an approval left
   * open is closed by its next resume, which finds the checkpoint moved on (a `notice` records the
   * failure, or the close left unanswered).
   */
  async committed(): Promise<void> {
    const resumed = this.#resumed;
    const turn = this.#turn;
    if (!resumed || !turn || !this.thread) return;
    try {
      const { signal } = this.#controller;
      await storeCall("closePendingApproval", signal, pendingStore(this.thread.store).closePendingApproval(resumed.id, turn.lease, signal));
    } catch (error) {
      this.#queue.push({
        type: "notice",
        kind: "lifecycle",
        message: `approval ${resumed.id}: closing it after the commit failed; its next resume closes it`,
        data: { id: resumed.id, error: error instanceof Error ? error.message : String(error) },
      });
    }
  }

  /**
   * Stores `ask` as approval `id` under the lease and stops the run (the first ask only); a failure
   * to store stops the run with that error. No store call waits past the run's end.
   */
  async #suspend(ask: ApprovalAsk, id: string): Promise<void> {
    const turn = this.#turn;
    const thread = this.thread;
    const settings = this.#settings;
    const controller = this.#controller;
    if (this.#suspending || !turn || !thread || !settings || controller.signal.aborted) return;
    this.#suspending = true;
    const store = pendingStore(thread.store);
    try {
      const approval = await saveSuspension({
        id,
        store,
        lease: turn.lease,
        key: thread.key,
        ask,
        startedFrom: turn.startedFrom,
        settings,
        turn: {
          v: 1,
          prompt: this.prompt,
          mode: thread.mode,
          answers: this.#answers,
          ...(this.#cwd !== undefined ? { cwd: this.#cwd } : {}),
        },
        signal: controller.signal,
      });
      if (controller.signal.aborted) {
        // The run ended another way meanwhile: the question is not left behind.
        await store.closePendingApproval(approval.id, turn.lease).catch(() => undefined);
        return;
      }
      // The new approval carries the answer of the one this turn resumed.
      if (this.#resumed)
        await storeCall(
          "closePendingApproval",
          controller.signal,
          store.closePendingApproval(this.#resumed.id, turn.lease, controller.signal),
        );
      this.#suspendedOn = approval;
      this.#queue.push({
        type: "notice",
        kind: "approval.suspended",
        message: `${ask.title}: the turn is suspended until approval ${approval.id} is answered`,
        data: {
          id: approval.id,
          kind: ask.kind,
          toolName: ask.toolName,
          ...(approval.deadline ? { deadline: approval.deadline.toISOString() } : {}),
        },
      });
      controller.abort(new SuspendStop("the turn suspended waiting for an approval"));
    } catch (error) {
      // The run ended while the store had not answered: its verdict names the store call.
      if (controller.signal.aborted) this.#unanswered = error;
      controller.abort(new AdaptorError("suspending the turn failed", { cause: error }));
    }
  }
}
