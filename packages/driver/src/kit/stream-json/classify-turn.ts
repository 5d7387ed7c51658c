import type { DriverFailure } from "@adaptor/driver";
import type { ResultLine } from "./stream-json-lines.js";
import { describeExit, type ExitCause } from "../cancel/exit-description.js";

/** What ended the process, as the classifier needs it. */
export interface TurnEnd extends ExitCause {
  readonly terminal: ResultLine | undefined;
  readonly stderrTail: string;
  /** The run asked to resume a session (`--resume`). */
  readonly resuming?: boolean;
}

/** Which CLI wrote the turn: its name in messages, and what it reports for a session it does not know. */
export interface StreamJsonCli {
  /** The CLI's name in failure messages, e.g. `"claude"`. */
  readonly name: string;
  /** Matches the `errors` entry or stderr of a `--resume` of a session the CLI has no transcript for. */
  readonly unknownSession: RegExp;
}

/**
 * Classifies a finished turn of a Claude-Code-style stream-json CLI (docs/protocols.md "Interrupt, errors, retries"): a `success`
 * result with a clean exit is no failure; `is_error` results, a missing result line and a
 * non-zero exit — or a death by a signal the SDK did not send (the OOM killer, an operator) — are
 * `agent_error` (with the API's message and status, or the signal in `details.exitSignal`); an interrupt the host did
 * not ask for is `cancelled`; a `--resume` of an unknown session is `resume_rejected`.
 */
export function classifyStreamJsonTurn(end: TurnEnd, cli: StreamJsonCli): DriverFailure | undefined {
  const { terminal, exitCode, exitSignal, stderrTail } = end;
  if (!terminal) {
    const how = describeExit(end);
    return {
      reason: "agent_error",
      message: `${cli.name} exited (${how}) without a result line${stderrTail ? `: ${stderrTail}` : ""}`,
      details: { exitCode, exitSignal, stderrTail },
    };
  }
  const errors = Array.isArray(terminal.errors) ? terminal.errors.map(String) : [];
  if (end.resuming && terminal.is_error && [...errors, stderrTail].some((text) => cli.unknownSession.test(text))) {
    return {
      reason: "resume_rejected",
      message: errors.find((text) => cli.unknownSession.test(text)) ?? stderrTail,
      details: { subtype: terminal.subtype, exitCode },
    };
  }
  const details = {
    subtype: terminal.subtype,
    terminalReason: terminal.terminal_reason,
    ...(terminal.api_error_status != null ? { apiErrorStatus: terminal.api_error_status } : {}),
    ...(terminal.permission_denials?.length ? { permissionDenials: terminal.permission_denials } : {}),
    exitCode,
  };
  const budget = BUDGET_SUBTYPES[terminal.subtype];
  if (budget) {
    return {
      reason: "budget_exceeded",
      message: terminal.result || errors.join("; ") || `${cli.name} stopped: ${terminal.subtype}`,
      details: { ...details, budget },
    };
  }
  if (terminal.is_error || terminal.subtype !== "success") {
    const interrupted = terminal.terminal_reason === "aborted_streaming" || terminal.terminal_reason === "aborted_tools";
    return {
      reason: interrupted ? "cancelled" : "agent_error",
      message: terminal.result || errors.join("; ") || `${cli.name} turn failed: ${terminal.subtype}`,
      details,
    };
  }
  if (exitCode !== 0 && exitCode !== null) {
    return {
      reason: "agent_error",
      message: `${cli.name} exited with code ${exitCode} after a success result${stderrTail ? `: ${stderrTail}` : ""}`,
      details: { ...details, stderrTail },
    };
  }
  return undefined;
}

/** Result subtypes of the CLI's own limits (`--max-turns`, `--max-budget-usd`) → the budget they enforce. */
const BUDGET_SUBTYPES: Readonly<Record<string, string>> = { error_max_turns: "maxTurns", error_max_budget_usd: "maxCostUsd" };
