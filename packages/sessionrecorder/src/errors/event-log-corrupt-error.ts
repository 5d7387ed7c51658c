import { AdaptorError } from "@adaptor/errors";
import { ErrJSONLEventLogCorrupt } from "./sentinels.js";

/**
 * What is wrong with a log: `torn-final-line` (the last line has no newline: an append that never
 * completed, typically a crash; the only kind `repair()` fixes), `malformed-line` (a complete line
 * that is not a record), `sequence-gap` (a record's sequence skips numbers), `duplicate-sequence`
 * (a record's sequence is not above the previous one), `changed-under-writer` (an open writer
 * found its log renamed over, deleted or truncated: the append that found it, and every later one,
 * is refused).
 */
export type EventLogCorruptionKind = "torn-final-line" | "malformed-line" | "sequence-gap" | "duplicate-sequence" | "changed-under-writer";

/** Fields of an {@link EventLogCorruptError}. */
export interface EventLogCorruptInit {
  /** The session key of the log. */
  readonly key: string;
  /** What is wrong. */
  readonly kind: EventLogCorruptionKind;
  /** 1-based line number of the offending line; 0 when `openWriter` found a malformed or over-long line reading only the log's end (a torn final line is numbered: the last record's sequence plus one). */
  readonly line: number;
  /** Byte offset of the start of the offending line. */
  readonly offset: number;
  /** The sequence the line should have carried, for sequence faults. */
  readonly expectedSequence?: number;
  /** The sequence the line carried, when it could be read. */
  readonly foundSequence?: number;
  /** A short reason for people, e.g. the JSON parse error. */
  readonly detail?: string;
}

/**
 * A JSONL event log that cannot be replayed faithfully. Matches {@link ErrJSONLEventLogCorrupt}.
 * Replay yields every record before the offending line and then throws this; nothing is skipped.
 * `repairable` is true only for a `torn-final-line`, which `repair(key)` truncates away.
 */
export class EventLogCorruptError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.EventLogCorruptError");
  static override readonly sentinel = ErrJSONLEventLogCorrupt;
  /** The session key of the log. */
  readonly key: string;
  /** What is wrong. */
  readonly kind: EventLogCorruptionKind;
  /** 1-based line number of the offending line; 0 when found by reading only the log's end. */
  readonly line: number;
  /** Byte offset of the start of the offending line. */
  readonly offset: number;
  /** The sequence the line should have carried (sequence faults), else undefined. */
  readonly expectedSequence: number | undefined;
  /** The sequence the line carried, when it could be read. */
  readonly foundSequence: number | undefined;
  /** True for a torn final line: `repair(key)` can truncate it. */
  readonly repairable: boolean;

  constructor(init: EventLogCorruptInit) {
    const where = `line ${init.line} (byte ${init.offset})`;
    const seq = init.expectedSequence !== undefined ? `: expected sequence ${init.expectedSequence}, found ${init.foundSequence}` : "";
    super(`event log ${init.key} corrupt at ${where}: ${init.kind}${seq}${init.detail ? ` (${init.detail})` : ""}`);
    this.key = init.key;
    this.kind = init.kind;
    this.line = init.line;
    this.offset = init.offset;
    this.expectedSequence = init.expectedSequence;
    this.foundSequence = init.foundSequence;
    this.repairable = init.kind === "torn-final-line";
  }
}
