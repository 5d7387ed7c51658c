import { AdaptorError } from "@adaptor/errors";
import { ErrStructuredOutputUnsupported } from "./sentinels.js";

/** No way to honour an output schema with this driver; matches {@link ErrStructuredOutputUnsupported}. */
export class StructuredOutputUnsupportedError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.StructuredOutputUnsupportedError");
  static override readonly sentinel = ErrStructuredOutputUnsupported;
  readonly driver: string;
  readonly reason: string;

  constructor(driver: string, reason: string) {
    super(`${driver}: structured output unsupported: ${reason}`);
    this.driver = driver;
    this.reason = reason;
  }
}
