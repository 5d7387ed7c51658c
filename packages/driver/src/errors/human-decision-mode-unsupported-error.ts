import { AdaptorError } from "@adaptor/errors";
import { ErrHumanDecisionModeUnsupported } from "./sentinels.js";

/** An explicit approval mode the driver's descriptor lacks; matches {@link ErrHumanDecisionModeUnsupported}. */
export class HumanDecisionModeUnsupportedError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.HumanDecisionModeUnsupportedError");
  static override readonly sentinel = ErrHumanDecisionModeUnsupported;
  /** Driver type, e.g. `"claude"`. */
  readonly driver: string;
  /** Approval kind: `"permission"`, `"plan_review"`, `"question"`. */
  readonly kind: string;
  /** Mode: `"ask"`, `"auto_approve"`, `"auto_deny"`. */
  readonly mode: string;

  constructor(driver: string, kind: string, mode: string) {
    super(`${driver}: approval mode ${kind}=${mode} is not supported`);
    this.driver = driver;
    this.kind = kind;
    this.mode = mode;
  }
}
