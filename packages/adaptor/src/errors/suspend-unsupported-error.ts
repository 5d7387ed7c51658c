import { AdaptorError } from "@adaptor/errors";
import { ErrSuspendUnsupported } from "./sentinels.js";

/**
 * A turn cannot suspend, or a thread's pending approvals cannot be used, because `reason`: the
 * Agent's thread store lacks the optional pending-approvals capability (`supportsPendingApprovals`
 * is false), or the run is a fork's first turn. Reported before the run starts (nothing ran, no
 * lease was taken), or the prompt has images (a stored turn keeps text only). Matches {@link ErrSuspendUnsupported}.
 */
export class SuspendUnsupportedError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.SuspendUnsupportedError");
  static override readonly sentinel = ErrSuspendUnsupported;
  /**
   * Why, for people: `"store"` (no capability), `"fork"` (a fork's first turn), `"adopt"` (a turn
   * run with `adoptSession`), `"images"` (a prompt with images) or `"elicitation"` (a turn whose
   * `policy.approvals.elicitation` is `ask`: a stored approval keeps no form schema or URL).
   */
  readonly reason: "store" | "fork" | "adopt" | "images" | "elicitation";

  constructor(reason: "store" | "fork" | "adopt" | "images" | "elicitation", message: string) {
    super(message);
    this.reason = reason;
  }
}
