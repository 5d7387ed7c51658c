import { AdaptorError } from "@adaptor/errors";
import { ErrAppendsPending } from "./sentinels.js";

/** The appends of one session key's writer that had not answered: sequences `first` to `last`. */
export interface PendingAppends {
  /** The session key. */
  readonly key: string;
  /** The first sequence not yet answered. */
  readonly first: number;
  /** The last sequence appended (not yet answered either). */
  readonly last: number;
}

/**
 * `close({ signal })` of an event backend or writer gave up when `signal` aborted while appends
 * had not answered (a store that stops answering: a row lock held by another session). Matches
 * {@link ErrAppendsPending}; `cause` is the signal's reason. The backend or writer is closed all
 * the same (it refuses every later operation); the appends named may still be stored, and their
 * writer releases its key once they answer (a later `close()` without a signal waits for that).
 */
export class AppendsPendingError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.AppendsPendingError");
  static override readonly sentinel = ErrAppendsPending;
  /** The appends left behind, per writer, in the order the writers were opened. */
  readonly pending: readonly PendingAppends[];

  constructor(pending: readonly PendingAppends[], cause: unknown) {
    const count = pending.reduce((sum, p) => sum + p.last - p.first + 1, 0);
    const which = pending.map((p) => `${p.key} ${p.first === p.last ? `sequence ${p.first}` : `sequences ${p.first}-${p.last}`}`);
    super(
      `close gave up on ${count} append${count === 1 ? "" : "s"} the store had not answered (${which.join(", ")}); they may still be stored`,
      { cause },
    );
    this.pending = Object.freeze(pending.map((p) => Object.freeze({ ...p })));
  }
}
