import type { ExitInfo } from "../../process/exit-info.js";
import type { DriverResponse } from "../../spi/response.js";

/**
 * A process's {@link ExitInfo} as `DriverResponse.exit`: code and signal, and `endedByDriver` when
 * the SDK ended the process itself (`ExitInfo.terminated`), so that the SDK does not take a CLI's
 * exit code after a SIGTERM (143) for a crash of a turn that succeeded.
 */
export function responseExit(exit: ExitInfo): NonNullable<DriverResponse["exit"]> {
  return { code: exit.code, signal: exit.signal, ...(exit.terminated === true ? { endedByDriver: true } : {}) };
}
