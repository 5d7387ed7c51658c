import type { DriverFailure } from "@adaptor/driver";
import { classifyStreamJsonTurn, type TurnEnd } from "@adaptor/driver/kit";

/**
 * What codebuddy 2.117.0 reports for a `--resume` of a session id it has no transcript for: a
 * `{"type":"error","error":"No conversation found with session ID: <id>"}` line, then it exits
 * without a result line (seen on the real binary).
 */
const UNKNOWN_SESSION = /No conversation found with session ID/i;

/**
 * Classifies a finished codebuddy turn: the kit's stream-json classification (see
 * `classifyStreamJsonTurn`), after the CLI's own `error` line when the turn ended without a result
 * line (`errorLine`: its `error` text): `resume_rejected` for a `--resume` of an unknown session,
 * else `agent_error` with that text.
 */
export function classifyCodeBuddyTurn(end: TurnEnd & { readonly errorLine?: string | undefined }): DriverFailure | undefined {
  if (!end.terminal && end.errorLine !== undefined) {
    const details = { exitCode: end.exitCode, exitSignal: end.exitSignal, stderrTail: end.stderrTail };
    if (end.resuming && UNKNOWN_SESSION.test(end.errorLine)) return { reason: "resume_rejected", message: end.errorLine, details };
    return { reason: "agent_error", message: end.errorLine, details };
  }
  return classifyStreamJsonTurn(end, { name: "codebuddy", unknownSession: UNKNOWN_SESSION });
}
