import { AdaptorError } from "@adaptor/errors";
import { ErrInvalidSessionKey } from "./sentinels.js";

/**
 * A session key that breaks the key rules (see `checkSessionKey`) or would name a file outside the
 * backend's root. Matches {@link ErrInvalidSessionKey}. Nothing was read or written for it.
 */
export class InvalidSessionKeyError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.InvalidSessionKeyError");
  static override readonly sentinel = ErrInvalidSessionKey;
  /** The key as given (`String(key)` for a non-string). */
  readonly key: string;
  /** Which rule it breaks, e.g. `"contains a path separator"`. */
  readonly reason: string;

  constructor(key: unknown, reason: string) {
    const text = typeof key === "string" ? key : String(key);
    super(`invalid session key ${JSON.stringify(text.slice(0, 40))}${text.length > 40 ? "…" : ""}: ${reason}`);
    this.key = text;
    this.reason = reason;
  }
}
