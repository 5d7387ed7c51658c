import { AdaptorError, type Sentinel } from "@adaptor/errors";
import type { FailureReason } from "@adaptor/driver";
import type { Result } from "../result/result.js";
import { ErrAgentFailed, ErrApprovalDenied, ErrApprovalTimeout, ErrPolicyViolation, ErrRunCancelled } from "./sentinels.js";

const REASON_SENTINELS: Readonly<Record<string, Sentinel>> = {
  approval_denied: ErrApprovalDenied,
  approval_timeout: ErrApprovalTimeout,
  agent_error: ErrAgentFailed,
  cancelled: ErrRunCancelled,
  policy_violation: ErrPolicyViolation,
};

/** Fields of a {@link RunError}. */
export interface RunErrorInit {
  /** See {@link RunError.reason}. */
  readonly reason: FailureReason;
  /** The error message, for people. */
  readonly message: string;
  /** See {@link RunError.details}. */
  readonly details?: Readonly<Record<string, unknown>>;
  /** See {@link RunError.result}. */
  readonly result: Result;
  /** The underlying error, kept on `cause`. */
  readonly cause?: unknown;
}

/**
 * A completed business failure (docs/errors.md "Business failures"): the run ended, and failed.
 * Matches the sentinel of its `reason` (`agent_error` → `ErrAgentFailed`, ...); an unknown reason
 * stays readable on `reason` and matches none of the five. `result` is never null.
 */
export class RunError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.RunError");
  /** Failure reason, e.g. `"agent_error"`. */
  readonly reason: FailureReason;
  /** Details the driver classified, e.g. `{ apiErrorStatus: 400 }`. */
  readonly details: Readonly<Record<string, unknown>>;
  /** The partial result: text, usage, raw streams, transcript so far. */
  readonly result: Result;

  constructor(init: RunErrorInit) {
    const known = Object.hasOwn(REASON_SENTINELS, init.reason) ? REASON_SENTINELS[init.reason] : undefined;
    super(init.message, { ...("cause" in init ? { cause: init.cause } : {}), ...(known ? { sentinel: known } : {}) });
    this.reason = init.reason;
    this.details = Object.freeze({ ...init.details });
    this.result = init.result;
  }
}
