import { AdaptorError } from "@adaptor/errors";
import { ErrHumanDecisionModeUnsupported } from "./sentinels.js";

/** An explicit approval mode the driver's descriptor lacks; matches {@link ErrHumanDecisionModeUnsupported}. */
export class HumanDecisionModeUnsupportedError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.HumanDecisionModeUnsupportedError");
  static override readonly sentinel = ErrHumanDecisionModeUnsupported;
  /** Driver type, e.g. `"claude"`. */
  readonly driver: string;
  /** Approval kind: `"permission"`, `"plan_review"`, `"question"`, `"elicitation"`. */
  readonly kind: string;
  /** Mode: `"ask"`, `"auto_approve"`, `"auto_deny"`. */
  readonly mode: string;

  /** Why the driver cannot enforce it, when it says (e.g. its enforcement rule's reason). */
  readonly reason: string | undefined;

  constructor(driver: string, kind: string, mode: string, reason?: string) {
    super(`${driver}: approval mode ${kind}=${mode} is not supported${reason ? ` (${reason})` : ""}`);
    this.reason = reason;
    this.driver = driver;
    this.kind = kind;
    this.mode = mode;
  }
}
