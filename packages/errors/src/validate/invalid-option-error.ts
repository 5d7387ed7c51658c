import { AdaptorError } from "../adaptor-error.js";
import { sentinel } from "../sentinel.js";

/**
 * An option, config field, limit or input string was refused before anything started: an unknown
 * key, a value of the wrong type, an empty string where a value is required, a number out of range,
 * or text a CLI cannot carry. Carried by {@link InvalidOptionError} and its subclasses.
 */
export const ErrInvalidOption = sentinel("adaptor.errors.InvalidOption", "invalid option");

/** Fields of an {@link InvalidOptionError}. */
export interface InvalidOptionInit {
  /** What holds the option, e.g. `"run options"`, `"Agent options"`, `"claude config"`, `"skillArchive limits"`. */
  readonly subject: string;
  /** Path of the option inside `subject`, e.g. `"model"`, `"env.PATH"`, `"extraArgs[2]"`; `""` for the whole value. */
  readonly field: string;
  /** What is wrong, for people, e.g. `"must be a non-empty string, got \"\""`. */
  readonly reason: string;
  /** For an unknown key: the closest known option name, when one is close enough to be a likely typo. */
  readonly suggestion?: string | undefined;
}

/**
 * A refused option (matches {@link ErrInvalidOption}). Thrown (or, from `stream()`, delivered
 * through the verdict) before any process starts; nothing is replaced by a default. The message
 * reads `<subject>: <field> <reason>`, e.g. `run options: modle is not a known option; did you
 * mean "model"?` or `claude config: idleMs must be a whole number of ms in [0, 2147483647], got 1000000000000`.
 */
export class InvalidOptionError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.InvalidOptionError");
  static override readonly sentinel = ErrInvalidOption;
  /** What holds the option, e.g. `"run options"`. */
  readonly subject: string;
  /** Path of the option inside {@link subject}; `""` for the whole value. */
  readonly field: string;
  /** What is wrong, for people. */
  readonly reason: string;
  /** Closest known option name for an unknown key, else `undefined`. */
  readonly suggestion: string | undefined;

  constructor(init: InvalidOptionInit, options: { cause?: unknown } = {}) {
    super(`${init.subject}: ${init.field === "" ? init.reason : `${init.field} ${init.reason}`}`, options);
    this.subject = init.subject;
    this.field = init.field;
    this.reason = init.reason;
    this.suggestion = init.suggestion;
  }
}
