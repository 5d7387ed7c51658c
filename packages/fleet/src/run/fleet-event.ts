import type { StoredVerdict } from "../verdict/verdict.js";

/** A fleet event: an attempt began on a worker. */
export interface AttemptStartedEvent {
  readonly type: "attempt-started";
  /** 1 for the first attempt, then 2, 3, ... after each lost worker. */
  readonly attempt: number;
  /** The worker's name (`FleetWorkerOptions.name`). */
  readonly worker: string;
}

/** The fleet's last event of a run: its one verdict, the same every host reads. */
export interface VerdictEvent {
  readonly type: "verdict";
  /**
   * The stored verdict, whole (as `handle.verdict()` reads it); `handle.result()` turns it into a
   * `Result` or an error. The stored event leaves the Result's raw streams and transcript to the
   * run's row; `events()` joins them back.
   */
  readonly verdict: StoredVerdict;
}

/**
 * One of the SDK's events (`text-delta`, `tool-call`, `approval-request`, `run-finished`, ...) as
 * JSON (docs/events.md): dates as ISO strings, an `approval-request`'s `request` as its fields
 * (answer it with `fleet.answer(request.id, decision)`).
 */
export interface RecordedAgentEvent {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** What a run's event log holds. */
export type FleetEventBody = AttemptStartedEvent | VerdictEvent | RecordedAgentEvent;

/** One event of a run as stored in PostgreSQL. */
export interface FleetEvent {
  /** Per run, from 1, increasing by one across attempts; pass it as `after` to resume. */
  readonly sequence: number;
  /** The attempt that emitted it (the verdict carries the attempt that settled the run). */
  readonly attempt: number;
  /** When it was stored (PostgreSQL's clock), ISO 8601. */
  readonly recordedAt: string;
  /** The event. */
  readonly event: FleetEventBody;
}
