import { AdaptorError } from "@adaptor/errors";
import { ErrInvalidDriverConfig } from "./sentinels.js";

/** `Driver.validateConfig` rejected the configuration; matches {@link ErrInvalidDriverConfig} and keeps `cause`. */
export class InvalidDriverConfigError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.InvalidDriverConfigError");
  static override readonly sentinel = ErrInvalidDriverConfig;
  /** Driver type, e.g. `"claude"`. */
  readonly driver: string;

  constructor(driver: string, reason: string, options: { cause?: unknown } = {}) {
    super(`${driver}: invalid driver config: ${reason}`, options);
    this.driver = driver;
  }
}
