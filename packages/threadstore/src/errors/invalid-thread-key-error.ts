import { AdaptorError } from "@adaptor/errors";
import { ErrInvalidThreadKey } from "./sentinels.js";

/**
 * A thread key that breaks the key rules (see `checkThreadKey`): it holds a lone UTF-16
 * surrogate, a control character (C0 such as NUL, DEL, C1) or a bidi override or isolate, is
 * whitespace only, or is longer than `MAX_THREAD_KEY_BYTES` bytes of UTF-8.
 * Matches {@link ErrInvalidThreadKey}. Nothing was read or written for it.
 */
export class InvalidThreadKeyError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.InvalidThreadKeyError");
  static override readonly sentinel = ErrInvalidThreadKey;
  /** The key as given. */
  readonly key: string;
  /** Which rule it breaks, e.g. `"contains a lone UTF-16 surrogate at index 6"`. */
  readonly reason: string;

  constructor(key: string, reason: string) {
    super(`invalid thread key ${preview(key)}: ${reason}`);
    this.key = key;
    this.reason = reason;
  }
}

/** The start of `key` as a JSON string literal (lone surrogates and controls escaped), at most 40 code units. */
function preview(key: string): string {
  return JSON.stringify(key.slice(0, 40)) + (key.length > 40 ? `… (${key.length} UTF-16 units)` : "");
}
