import { AdaptorError, type Sentinel } from "@adaptor/errors";
import type { Result } from "../result/result.js";

/**
 * What became of a thread turn whose `finalize` (the write of its checkpoint) did not end in a
 * clean success (docs/errors.md "Thread errors"):
 * - `not_committed`: nothing was written. The store refused the write (the lease had lapsed or been
 *   taken over: also matches `ErrThreadLeaseLost`), or `finalize` failed and the key's record read
 *   back afterwards is still the one the turn started from (or there is still none). The thread
 *   keeps its previous checkpoint: running the turn again does not run it twice.
 * - `unknown`: `finalize` failed and reading the record back failed too (or showed a write that
 *   is neither the turn's nor the one it started from): the turn's commit may or may not have
 *   landed; whether it was saved is known only once the thread is read again.
 * - `revision_moved`: the turn was written, but over a newer revision of the record than the one
 *   the store's `resolve` showed it (a store answering from a lagging replica): the turns between
 *   are cut from the record's history. Also matches `ErrThreadLeaseLost`: the turn did not hold the
 *   record it wrote over, so its outcome is not authoritative; investigate the store.
 */
export type ThreadCommitFailure = "not_committed" | "unknown" | "revision_moved";

/** Fields of a {@link ThreadCommitError}. */
export interface ThreadCommitErrorInit {
  /** See {@link ThreadCommitError.key}. */
  readonly key: string;
  /** See {@link ThreadCommitError.reason}. */
  readonly reason: ThreadCommitFailure;
  /** The error message, for people. */
  readonly message: string;
  /** See {@link ThreadCommitError.result}. */
  readonly result?: Result;
  /** Root sentinels the error matches besides those of its cause chain (`ErrThreadLeaseLost`). */
  readonly sentinel?: Sentinel;
  /** The store's error (for `revision_moved`, none), kept on `cause`: `findError` reaches it. */
  readonly cause?: unknown;
}

/**
 * A thread turn ran, and writing its checkpoint did not end in a clean success: `reason` says
 * whether it was written (see {@link ThreadCommitFailure}). The store's own error stays on the
 * cause chain, so its sentinels and classes still match (`findError(err, DriverError)`); a lost
 * lease also matches `ErrThreadLeaseLost`. A `finalize` whose write landed but whose reply was lost
 * is not an error: the run resolves its `Result`, with a `notice` `thread store reply lost`.
 * It is not a `RunError`: the turn itself did not fail.
 */
export class ThreadCommitError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.ThreadCommitError");
  /** The thread key. */
  readonly key: string;
  /** Whether the turn's checkpoint was written, as a code to match on. */
  readonly reason: ThreadCommitFailure;
  /** The turn's result (its text, usage and transcript, as a success would have resolved them). */
  readonly result: Result | undefined;
  readonly #sentinel: Sentinel | undefined;

  constructor(init: ThreadCommitErrorInit) {
    super(init.message, {
      ...(init.sentinel ? { sentinel: init.sentinel } : {}),
      ...("cause" in init ? { cause: init.cause } : {}),
    });
    this.key = init.key;
    this.reason = init.reason;
    this.result = init.result;
    this.#sentinel = init.sentinel;
  }

  /** The same error carrying the turn's `result`. */
  withResult(result: Result): ThreadCommitError {
    return new ThreadCommitError({
      key: this.key,
      reason: this.reason,
      message: this.message,
      result,
      ...(this.#sentinel ? { sentinel: this.#sentinel } : {}),
      ...(this.cause !== undefined ? { cause: this.cause } : {}),
    });
  }
}
