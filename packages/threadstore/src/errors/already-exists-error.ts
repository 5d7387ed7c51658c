import { AdaptorError } from "@adaptor/errors";
import { ErrAlreadyExists } from "./sentinels.js";

/** `finalize` with `requireKeyAbsent` found an active record under `key`; matches {@link ErrAlreadyExists}. */
export class AlreadyExistsError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.AlreadyExistsError");
  static override readonly sentinel = ErrAlreadyExists;
  /** The key that already has an active record. */
  readonly key: string;

  constructor(key: string) {
    super(`already exists: ${key}`);
    this.key = key;
  }
}
