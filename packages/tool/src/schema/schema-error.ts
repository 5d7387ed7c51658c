import { AdaptorError } from "@adaptor/errors";

/**
 * Why a schema cannot be used: it could not be derived, parsed or compiled. Internal to the SDK
 * (`@adaptor/tool/internal`): callers turn it into their own identity (`InvalidOutputSchemaError`
 * for output schemas, `ErrInvalidDefinition` for tool schemas), keeping it as `cause`.
 */
export class SchemaError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.SchemaError");
  /** Short reason for people, e.g. `"not JSON"`, `"unknown format \"x\""`. */
  readonly reason: string;

  constructor(reason: string, options: { cause?: unknown } = {}) {
    super(reason, options);
    this.reason = reason;
  }
}
