import { InvalidOptionError } from "@adaptor/errors";
import { checkSuspend } from "../suspend/suspension.js";
import type { RunOptions } from "./run-options.js";

/**
 * Refuses, for a run that is not a thread turn, the run options only a thread turn takes.
 * @throws InvalidOptionError (subject `"run options"`, field `suspend` or `checkpointFiles`).
 */
export function refuseThreadOnlyOptions(options: RunOptions): void {
  checkSuspend(options, undefined);
  if (options.checkpointFiles) {
    throw new InvalidOptionError({
      subject: "run options",
      field: "checkpointFiles",
      reason: "applies to thread turns only (agent.thread(key).run)",
    });
  }
}
