import type { AllowDeny, ApprovalKind, ApprovalMode, SandboxMode } from "./descriptor.js";

/** Approval mode per kind; unset means `inherit`. */
export type ApprovalModes = { readonly [K in ApprovalKind]?: ApprovalMode };

/**
 * What the host allows a run to do. Unset fields inherit the
 * CLI's own configuration and are never a capability request. The SDK validates values against
 * the driver's descriptor before launch; drivers receive only supported values.
 */
export interface RunPolicy {
  /** Sandbox to enforce; unset: the CLI's own setting. */
  readonly sandbox?: SandboxMode;
  /** Web search allowed or denied; unset: the CLI's own setting. */
  readonly webSearch?: AllowDeny;
  /** Browser use allowed or denied; unset: the CLI's own setting. */
  readonly browser?: AllowDeny;
  /** Budget of active run time in ms (paused while a human is asked). */
  readonly activeExecutionTimeoutMs?: number;
  /** Approval mode per kind, as resolved by the SDK; unset kinds inherit. */
  readonly approvals?: ApprovalModes;
}
