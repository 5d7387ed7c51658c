import type { DriverFailure } from "@adaptor/driver";
import { classifyStreamJsonTurn, type TurnEnd } from "@adaptor/driver/kit";
import { STRUCTURED_RETRIES_SPENT } from "./structured-attempt.js";

/**
 * What claude 2.1.332 reports for a `--resume` id it has no transcript for, and for a
 * `--resume-session-at` message the transcript does not hold (both seen on the real binary).
 */
const NO_CONVERSATION = /No conversation found with session ID|No message found with message\.uuid/i;

/**
 * Classifies a finished claude turn (the kit's stream-json classification, see
 * `classifyStreamJsonTurn`). A turn Claude Code ended out of structured-output retries is no
 * failure of the agent: its answer is judged by the SDK's schema check, as any invalid structured
 * answer is (`policy_violation`, or a success under `returnInvalid`).
 */
export function classifyTurn(end: TurnEnd): DriverFailure | undefined {
  if (end.terminal?.subtype === STRUCTURED_RETRIES_SPENT) return undefined;
  return classifyStreamJsonTurn(end, { name: "claude", unknownSession: NO_CONVERSATION });
}
