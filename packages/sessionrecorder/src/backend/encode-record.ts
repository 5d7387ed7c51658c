import { DriverError, ErrCode } from "@adaptor/errors";
import type { JsonValue, RecordedEvent } from "./event-backend.js";

/** The record's JSON line, without the newline. */
export function encodeRecord(key: string, record: RecordedEvent): string {
  let line: string | undefined;
  try {
    line = JSON.stringify(record);
  } catch (error) {
    throw new DriverError({ op: "append", device: key, code: ErrCode.Invalid, cause: error });
  }
  if (line === undefined || !/"event":/.test(line)) {
    throw new DriverError({ op: "append", device: key, code: ErrCode.Invalid, cause: "the event is not a JSON value" });
  }
  return line;
}

/** A record read back from a line, or the reason it is not one. */
export function decodeRecord(line: string): RecordedEvent | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object";
  const record = value as { sequence?: unknown; recordedAt?: unknown; event?: unknown };
  if (typeof record.sequence !== "number" || !Number.isSafeInteger(record.sequence) || record.sequence < 1) {
    return "no positive integer sequence";
  }
  if (typeof record.recordedAt !== "string") return "no recordedAt";
  if (!("event" in record)) return "no event";
  return { sequence: record.sequence, recordedAt: record.recordedAt, event: record.event as JsonValue };
}
