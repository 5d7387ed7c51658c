import { AdaptorError } from "@adaptor/errors";
import { ErrFeatureUnsupported } from "./sentinels.js";

/**
 * A run asked for something the driver cannot deliver to its agent (a system prompt, subagent
 * definitions, an image in the prompt, ...): refused before launch, nothing started. Matches
 * {@link ErrFeatureUnsupported}.
 */
export class FeatureUnsupportedError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.FeatureUnsupportedError");
  static override readonly sentinel = ErrFeatureUnsupported;
  /** Driver type, e.g. `"acp"`. */
  readonly driver: string;
  /** The run option, e.g. `"systemPrompt"`, `"agents"`. */
  readonly feature: string;
  /** Why, for people: what the driver lacks and what to do instead. */
  readonly reason: string;

  constructor(driver: string, feature: string, reason: string) {
    super(`${driver}: ${feature} is not supported: ${reason}`);
    this.driver = driver;
    this.feature = feature;
    this.reason = reason;
  }
}
