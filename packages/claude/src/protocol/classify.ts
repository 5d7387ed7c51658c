import type { DriverFailure } from "@adaptor/driver";
import { classifyStreamJsonTurn, type TurnEnd } from "@adaptor/driver/kit";

/**
 * What claude 2.1.332 reports for a `--resume` id it has no transcript for, and for a
 * `--resume-session-at` message the transcript does not hold (both seen on the real binary).
 */
const NO_CONVERSATION = /No conversation found with session ID|No message found with message\.uuid/i;

/** Classifies a finished claude turn (the kit's stream-json classification, see `classifyStreamJsonTurn`). */
export function classifyTurn(end: TurnEnd): DriverFailure | undefined {
  return classifyStreamJsonTurn(end, { name: "claude", unknownSession: NO_CONVERSATION });
}
