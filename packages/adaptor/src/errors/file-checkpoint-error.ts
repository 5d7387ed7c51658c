import { AdaptorError } from "@adaptor/errors";
import { ErrFileCheckpoint } from "./sentinels.js";

/**
 * Why a file checkpoint or a rewind failed:
 * - `git_missing`: the `git` executable (file checkpoints keep their snapshots in git's object
 *   store) was not found; nothing ran.
 * - `cwd_required`: the run has no `cwd` option, so the workspace to snapshot is unknown (a
 *   driver's own `cwd` config is not read); nothing ran.
 * - `inside_workspace`: the checkpoint directory is the workspace or inside it; nothing ran.
 * - `git_failed`: a git command failed (its stderr is in the message and `cause`).
 * - `turn_not_found`: `thread.rewind(runId)` names no committed turn in this thread's history.
 * - `diverged`: the thread's record is no longer the one its last checkpointed turn committed (a
 *   turn ran without `checkpointFiles`, on another host, or the thread was deleted); nothing changed.
 * - `store_failed`: the files were restored but the conversation's checkpoint could not be
 *   written back (e.g. the lease was lost); `cause` says why.
 * - `history_failed`: the files and the conversation's checkpoint were restored, but git failed
 *   to drop the undone turns from the thread's file history (`cause`); a later rewind of the
 *   thread fails with `diverged`.
 */
export type FileCheckpointFailure =
  "git_missing" | "cwd_required" | "inside_workspace" | "git_failed" | "turn_not_found" | "diverged" | "store_failed" | "history_failed";

/**
 * A file checkpoint (the `checkpointFiles` option) or `thread.rewind()` failed. Matches
 * {@link ErrFileCheckpoint}. Before a turn, the turn does not start; in a rewind, nothing is
 * changed unless `reason` is `store_failed` or `history_failed`.
 */
export class FileCheckpointError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.FileCheckpointError");
  static override readonly sentinel = ErrFileCheckpoint;
  /** Why, as a code to match on. */
  readonly reason: FileCheckpointFailure;

  constructor(reason: FileCheckpointFailure, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.reason = reason;
  }
}
