import { PolicyCapabilityUnsupportedError } from "@adaptor/driver";

/**
 * The agent did not take the session mode that enforces a run's policy: the session the agent
 * opened does not offer it (its `session/new` / `session/load` answer lists modes, in `modes` or a
 * `mode` config option, and not this one: nothing is set), or after the driver set it, the mode the
 * agent reported (its `current_mode_update`, or the `mode` config option of its
 * `session/set_config_option` answer) was another one, or none. The prompt is never sent. Matches
 * `ErrPolicyCapabilityUnsupported` (it is a {@link PolicyCapabilityUnsupportedError}).
 */
export class AcpModeNotAppliedError extends PolicyCapabilityUnsupportedError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.AcpModeNotAppliedError");
  /** The session mode the driver set, or would have set, e.g. `"plan"`. */
  readonly requestedMode: string;
  /** The mode the agent reported afterwards; undefined when it reported none, or the mode was not offered (not set). */
  readonly reportedMode: string | undefined;
  /**
   * The mode ids the agent's session offers, when the requested mode is not among them (it was
   * then never set); undefined when the mode was set and not taken.
   */
  readonly offeredModes: readonly string[] | undefined;

  /**
   * @param driver - descriptor type.
   * @param dimension - the policy field the mode enforces (`"sandbox"`, `"approvals.permission"`).
   * @param value - that field's value.
   * @param offeredModes - the modes the session offers, for a requested mode not among them.
   */
  constructor(
    driver: string,
    dimension: string,
    value: string,
    requestedMode: string,
    reportedMode: string | undefined,
    offeredModes?: readonly string[],
  ) {
    super(driver, dimension, value);
    const what =
      offeredModes !== undefined
        ? `the agent does not offer session mode ${JSON.stringify(requestedMode)} (it offers ${offeredModes.map((m) => JSON.stringify(m)).join(", ") || "none"}), so it was not set`
        : `the agent was set to session mode ${JSON.stringify(requestedMode)} but reports ${reportedMode === undefined ? "no mode" : JSON.stringify(reportedMode)}`;
    this.message = `${driver}: policy ${dimension}=${JSON.stringify(value)} is not enforced: ${what}`;
    this.requestedMode = requestedMode;
    this.reportedMode = reportedMode;
    this.offeredModes = offeredModes === undefined ? undefined : Object.freeze([...offeredModes]);
  }
}
