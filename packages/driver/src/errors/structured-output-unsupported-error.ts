import { AdaptorError } from "@adaptor/errors";
import { ErrStructuredOutputUnsupported } from "./sentinels.js";

/** No way to honour an output schema with this driver; matches {@link ErrStructuredOutputUnsupported}. */
export class StructuredOutputUnsupportedError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.StructuredOutputUnsupportedError");
  static override readonly sentinel = ErrStructuredOutputUnsupported;
  /** Driver type, e.g. `"claude"`. */
  readonly driver: string;
  /** Why neither native nor prompt-based structured output can be used. */
  readonly reason: string;

  constructor(driver: string, reason: string) {
    super(`${driver}: structured output unsupported: ${reason}`);
    this.driver = driver;
    this.reason = reason;
  }
}
