import { InvalidOptionError } from "@adaptor/errors";
import type { CheckpointState } from "@adaptor/threadstore";
import { canonicalJson } from "./fingerprint.js";

/**
 * Where a fork branches from its parent: the turn it keeps last. A number is the turn's position
 * among the parent's committed turns, counting from 1 (its first turn); a string is that turn's
 * run id (`result.runId` of the run that committed it).
 */
export type ForkPoint = number | string;

/** Options of `thread.fork()`. */
export interface ForkOptions {
  /**
   * The parent's turn the fork keeps last: the fork's first run sees the parent's conversation
   * through that turn and nothing after it. Default: the parent's latest committed turn.
   * See {@link ForkPoint}.
   */
  readonly at?: ForkPoint;
}

/** One committed turn as a thread's stored session state remembers it: the checkpoint it ended at. */
export interface StoredTurn {
  /** The run that committed it (`result.runId`). */
  readonly runId: string;
  /** The checkpoint it committed: the CLI's session id. */
  readonly resumeId: string;
  /** The checkpoint it committed: the driver's data. */
  readonly data?: unknown;
}

/**
 * The committed turns of a conversation, oldest first, kept with its stored session state. A log
 * is `complete` when it starts at the conversation's first turn (so positions count from there);
 * one that does not (an adopted session, or a record written before turns were kept) still names
 * its turns by run id.
 */
export interface TurnLog {
  readonly complete: boolean;
  readonly turns: readonly StoredTurn[];
}

const SUBJECT = "thread.fork()";

/**
 * Checks the shape of a fork point before anything runs.
 * @throws InvalidOptionError (subject `"thread.fork()"`, field `at`) unless `at` is a positive
 * safe integer or a non-empty string.
 */
export function checkForkPoint(at: unknown): asserts at is ForkPoint {
  if (typeof at === "number" && Number.isSafeInteger(at) && at >= 1) return;
  if (typeof at === "string" && at !== "") return;
  throw new InvalidOptionError({
    subject: SUBJECT,
    field: "at",
    reason: `must be a turn number (1 for the parent's first turn) or a run id, got ${typeof at === "string" ? '""' : String(at)}`,
  });
}

/** The turn log in a manifest's `turns`, or `undefined` when there is none or it is malformed. */
export function readTurnLog(value: unknown): TurnLog | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const log = value as Partial<TurnLog>;
  if (typeof log.complete !== "boolean" || !Array.isArray(log.turns)) return undefined;
  const ok = log.turns.every(
    (turn: unknown) =>
      typeof turn === "object" &&
      turn !== null &&
      typeof (turn as StoredTurn).runId === "string" &&
      typeof (turn as StoredTurn).resumeId === "string",
  );
  return ok ? (log as TurnLog) : undefined;
}

/** Whether `turn` ended at `checkpoint` (same session id and driver data, key order aside). */
function endsAt(turn: StoredTurn, checkpoint: CheckpointState): boolean {
  return turn.resumeId === checkpoint.resumeId && canonicalJson(turn.data ?? null) === canonicalJson(checkpoint.data ?? null);
}

/**
 * The turns of `log` through the one that ended at `checkpoint` (a record's current checkpoint):
 * a log may hold turns a rewind undid since, or miss turns committed without their session files.
 * `undefined` when no turn of it ended there.
 */
export function turnsThrough(log: TurnLog | undefined, checkpoint: CheckpointState): TurnLog | undefined {
  if (!log) return undefined;
  for (let i = log.turns.length - 1; i >= 0; i--) {
    if (endsAt(log.turns[i]!, checkpoint)) return { complete: log.complete, turns: log.turns.slice(0, i + 1) };
  }
  return undefined;
}

/**
 * The log after a turn committed `turn`, given the log of the conversation it continued or
 * branched from (`undefined`: a conversation whose earlier turns are not known).
 */
export function withTurn(before: TurnLog | undefined, turn: StoredTurn): TurnLog {
  return before ? { complete: before.complete, turns: [...before.turns, turn] } : { complete: false, turns: [turn] };
}

/**
 * The parent's turns a fork at `at` keeps (through that turn).
 * @throws InvalidOptionError (subject `"thread.fork()"`, field `at`) when the parent has no such
 * turn: a number past its last turn, or its log does not start at its first turn; a run id of no
 * committed turn of it; or no turns are known for the parent at all.
 */
export function forkedTurns(parentKey: string, log: TurnLog | undefined, at: ForkPoint): TurnLog {
  if (!log)
    throw new InvalidOptionError({
      subject: SUBJECT,
      field: "at",
      reason: `cannot be resolved: thread ${parentKey} has no stored turns to fork at (its last turn was committed without its session files, or before turns were kept)`,
    });
  if (typeof at === "number") {
    if (!log.complete)
      throw new InvalidOptionError({
        subject: SUBJECT,
        field: "at",
        reason: `cannot be a turn number for thread ${parentKey}: its stored turns do not start at its first turn (name the turn by its run id)`,
      });
    if (at > log.turns.length)
      throw new InvalidOptionError({
        subject: SUBJECT,
        field: "at",
        reason: `names turn ${at}, but thread ${parentKey} has ${log.turns.length} committed turn${log.turns.length === 1 ? "" : "s"}`,
      });
    return { complete: true, turns: log.turns.slice(0, at) };
  }
  const index = log.turns.findIndex((turn) => turn.runId === at);
  if (index < 0)
    throw new InvalidOptionError({
      subject: SUBJECT,
      field: "at",
      reason: `names run ${at}, which committed no turn of thread ${parentKey}'s current conversation`,
    });
  return { complete: log.complete, turns: log.turns.slice(0, index + 1) };
}
