import { checkInspectOptions, type Driver, type DriverInspection, type InspectOptions } from "@adaptor/driver";

/**
 * `driver.inspect(options)`, or, for a driver without `inspect`, an inspection that says so: what
 * the descriptor tells (MCP transports) and one failed check of reason `probe_failed`.
 * @throws InvalidOptionError (subject `"inspect options"`) for refused options (see
 * `checkInspectOptions`); `options.signal`'s reason when aborted.
 */
export async function inspectDriver(driver: Driver, options: InspectOptions = {}): Promise<DriverInspection> {
  const checked = checkInspectOptions(options);
  checked.signal?.throwIfAborted();
  if (driver.inspect) return driver.inspect(checked);
  const transports = driver.descriptor.capabilities.mcp.transports;
  return {
    driver: driver.descriptor.type,
    ok: false,
    executable: { command: "", found: false },
    version: {},
    authentication: { present: false },
    models: { supported: false, reason: `driver ${driver.descriptor.type} cannot be inspected` },
    mcp: { supported: transports.length > 0, transports },
    skills: { supported: false },
    failed: [{ check: "executable", reason: "probe_failed", message: `driver ${driver.descriptor.type} has no inspect()` }],
  };
}
