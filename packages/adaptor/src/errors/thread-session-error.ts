import { AdaptorError, type Sentinel } from "@adaptor/errors";
import type { Result } from "../result/result.js";
import { ErrThreadSessionCorrupt, ErrThreadSessionRewritten, ErrThreadSessionTooLarge, ErrThreadSessionUnavailable } from "./sentinels.js";

/**
 * Why a thread's portable session failed (docs/errors.md "Thread errors"):
 * - `not_exported`: after a successful turn the driver found no session files to store, or could
 *   not read them (strict portability only; otherwise the turn commits without them).
 * - `too_large`: the turn's session state would exceed `sessionStateLimitBytes` (strict
 *   portability only; otherwise the turn commits without it).
 * - `rewritten`: the CLI rewrote a session file during the turn instead of appending to it.
 * - `local_only`: the checkpoint was committed without its session files, and this host's CLI home
 *   does not hold them through the checkpoint.
 * - `missing`: the record says the store holds its session files, but the store has none for it.
 * - `damaged`: the stored session state does not decode to what its manifest says (a missing,
 *   truncated or corrupt segment, a checksum mismatch, an unreadable manifest).
 * - `stale`: the record says the store holds its session files, but the stored state does not
 *   reach its checkpoint (an older write's state: a store that wrote the record without the state
 *   that went with it).
 * - `restore_failed`: the stored files could not be written into this host's CLI home.
 */
export type ThreadSessionFailure =
  "not_exported" | "too_large" | "rewritten" | "local_only" | "missing" | "damaged" | "stale" | "restore_failed";

const SENTINEL: Readonly<Record<ThreadSessionFailure, Sentinel>> = {
  not_exported: ErrThreadSessionUnavailable,
  too_large: ErrThreadSessionTooLarge,
  rewritten: ErrThreadSessionRewritten,
  local_only: ErrThreadSessionUnavailable,
  missing: ErrThreadSessionCorrupt,
  damaged: ErrThreadSessionCorrupt,
  stale: ErrThreadSessionCorrupt,
  restore_failed: ErrThreadSessionUnavailable,
};

/** Fields of a {@link ThreadSessionError}. */
export interface ThreadSessionErrorInit {
  /** See {@link ThreadSessionError.key}. */
  readonly key: string;
  /** See {@link ThreadSessionError.reason}. */
  readonly reason: ThreadSessionFailure;
  /** The error message, for people. */
  readonly message: string;
  /** See {@link ThreadSessionError.result}. */
  readonly result?: Result;
  /** The underlying error (the store's, the driver's, zlib's), kept on `cause`. */
  readonly cause?: unknown;
}

/**
 * A thread turn's portable session failed (docs/errors.md "Thread errors"). Matches the sentinel of
 * its `reason`: `ErrThreadSessionUnavailable` (`not_exported`, `local_only`, `restore_failed`),
 * `ErrThreadSessionTooLarge` (`too_large`), `ErrThreadSessionRewritten` (`rewritten`),
 * `ErrThreadSessionCorrupt` (`missing`, `damaged`, `stale`; also matches `ErrThreadSessionUnavailable`).
 * Nothing is committed: the thread's previous checkpoint and stored files stay as they were.
 */
export class ThreadSessionError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.ThreadSessionError");
  /** The thread key. */
  readonly key: string;
  /** Why, as a code to match on. */
  readonly reason: ThreadSessionFailure;
  /**
   * The turn's result, when the turn ran and only its commit was refused (`not_exported`,
   * `too_large`, `rewritten`): its text, usage and transcript, as a success would have resolved
   * them. `undefined` when the failure came before the CLI started (restoring the session).
   */
  readonly result: Result | undefined;

  constructor(init: ThreadSessionErrorInit) {
    super(init.message, { sentinel: SENTINEL[init.reason], ...("cause" in init ? { cause: init.cause } : {}) });
    this.key = init.key;
    this.reason = init.reason;
    this.result = init.result;
  }

  /** The same error carrying the turn's `result`. */
  withResult(result: Result): ThreadSessionError {
    return new ThreadSessionError({
      key: this.key,
      reason: this.reason,
      message: this.message,
      result,
      ...(this.cause !== undefined ? { cause: this.cause } : {}),
    });
  }
}
