import { AdaptorError } from "@adaptor/errors";
import { ErrSessionStateTooLarge } from "./sentinels.js";

/**
 * A `finalize` whose session state would exceed its `limitBytes`; nothing was written (the
 * previous record and state are kept). Matches {@link ErrSessionStateTooLarge}.
 */
export class SessionStateTooLargeError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.SessionStateTooLargeError");
  static override readonly sentinel = ErrSessionStateTooLarge;
  /** The thread key of the refused record. */
  readonly key: string;
  /** Bytes the record's state would have held after the write. */
  readonly bytes: number;
  /** The limit in bytes. */
  readonly limitBytes: number;

  constructor(key: string, bytes: number, limitBytes: number) {
    super(`session state too large: ${key} would hold ${bytes} bytes, limit ${limitBytes}`);
    this.key = key;
    this.bytes = bytes;
    this.limitBytes = limitBytes;
  }
}
