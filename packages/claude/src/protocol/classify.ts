import type { DriverFailure } from "@adaptor/driver";
import type { ResultLine } from "./messages.js";

/** What ended the process, as the classifier needs it. */
export interface TurnEnd {
  readonly terminal: ResultLine | undefined;
  readonly exitCode: number | null;
  readonly exitSignal: string | null;
  readonly stderrTail: string;
}

/**
 * Classifies a finished turn (cli-protocols.md §2 "Interrupt, errors, retries"): a `success`
 * result with a clean exit is no failure; `is_error` results, a missing result line and a
 * non-zero exit are `agent_error` (with the API's message and status); an interrupt the host did
 * not ask for is `cancelled`.
 */
export function classifyTurn(end: TurnEnd): DriverFailure | undefined {
  const { terminal, exitCode, exitSignal, stderrTail } = end;
  if (!terminal) {
    const how = exitSignal ? `signal ${exitSignal}` : `code ${String(exitCode)}`;
    return {
      reason: "agent_error",
      message: `claude exited (${how}) without a result line${stderrTail ? `: ${stderrTail}` : ""}`,
      details: { exitCode, exitSignal, stderrTail },
    };
  }
  const details = {
    subtype: terminal.subtype,
    terminalReason: terminal.terminal_reason,
    ...(terminal.api_error_status != null ? { apiErrorStatus: terminal.api_error_status } : {}),
    ...(terminal.permission_denials?.length ? { permissionDenials: terminal.permission_denials } : {}),
    exitCode,
  };
  if (terminal.is_error || terminal.subtype !== "success") {
    const interrupted = terminal.terminal_reason === "aborted_streaming" || terminal.terminal_reason === "aborted_tools";
    return {
      reason: interrupted ? "cancelled" : "agent_error",
      message: terminal.result || `claude turn failed: ${terminal.subtype}`,
      details,
    };
  }
  if (exitCode !== 0 && exitCode !== null) {
    return {
      reason: "agent_error",
      message: `claude exited with code ${exitCode} after a success result${stderrTail ? `: ${stderrTail}` : ""}`,
      details: { ...details, stderrTail },
    };
  }
  return undefined;
}
