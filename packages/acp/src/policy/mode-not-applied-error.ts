import { PolicyCapabilityUnsupportedError } from "@adaptor/driver";

/**
 * The agent did not take the session mode that enforces a run's policy: after the driver set it, the
 * mode the agent reported (its `current_mode_update`, or the `mode` config option of its
 * `session/set_config_option` answer) was another one, or none. The prompt is never sent. Matches
 * `ErrPolicyCapabilityUnsupported` (it is a {@link PolicyCapabilityUnsupportedError}).
 */
export class AcpModeNotAppliedError extends PolicyCapabilityUnsupportedError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.AcpModeNotAppliedError");
  /** The session mode the driver set, e.g. `"plan"`. */
  readonly requestedMode: string;
  /** The mode the agent reported afterwards; undefined when it reported none. */
  readonly reportedMode: string | undefined;

  /**
   * @param driver - descriptor type.
   * @param dimension - the policy field the mode enforces (`"sandbox"`, `"approvals.permission"`).
   * @param value - that field's value.
   */
  constructor(driver: string, dimension: string, value: string, requestedMode: string, reportedMode: string | undefined) {
    super(driver, dimension, value);
    this.message = `${driver}: policy ${dimension}=${JSON.stringify(value)} is not enforced: the agent was set to session mode ${JSON.stringify(requestedMode)} but reports ${reportedMode === undefined ? "no mode" : JSON.stringify(reportedMode)}`;
    this.requestedMode = requestedMode;
    this.reportedMode = reportedMode;
  }
}
