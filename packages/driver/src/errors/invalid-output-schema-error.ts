import { AdaptorError } from "@adaptor/errors";
import { ErrInvalidOutputSchema } from "./sentinels.js";

/** An output schema that cannot be used; matches {@link ErrInvalidOutputSchema} and keeps `cause`. */
export class InvalidOutputSchemaError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.InvalidOutputSchemaError");
  static override readonly sentinel = ErrInvalidOutputSchema;
  /** Why, for people: `"not JSON"`, `"recursive $ref"`, `"unknown format \"x\""`. */
  readonly reason: string;

  constructor(reason: string, options: { cause?: unknown } = {}) {
    super(`invalid output schema: ${reason}`, options);
    this.reason = reason;
  }
}
