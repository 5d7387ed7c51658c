import { FleetClosedError } from "../errors/fleet-errors.js";
import { RUN_FORMAT } from "../format/run-format.js";
import type { FleetOptions } from "./fleet-options.js";

/** Options with their defaults. */
export interface ResolvedFleetOptions {
  readonly connectionString: string;
  readonly listenConnectionString: string;
  readonly schema: string;
  readonly queue: string;
  readonly runFormat: number;
  readonly maxQueued: number;
  readonly maxPayloadBytes: number;
  readonly maxAttempts: number;
  readonly heartbeatSeconds: number;
  readonly monitorIntervalSeconds: number;
  readonly retryRuns: boolean;
  readonly retentionMs: number;
  readonly queueDeadlineMs: number;
  readonly onLostApproval: "ask-again" | "suspend";
}

function positiveInteger(name: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min)
    throw new RangeError(`Fleet options: ${name} must be an integer >= ${min}, got ${String(value)}`);
  return value;
}

function runFormat(value: unknown): number {
  if (value === undefined) return RUN_FORMAT;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > RUN_FORMAT)
    throw new RangeError(`Fleet options: runFormat must be an integer from 1 to ${RUN_FORMAT}, got ${String(value)}`);
  return value as number;
}

/** The default bound of a submitted run's input: 64 MiB. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;
/** The largest bound of a submitted run's input: 256 MiB, the longest string `jsonb` keeps. */
export const MAX_PAYLOAD_BYTES = 256 * 1024 * 1024;

function maxPayloadBytes(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_PAYLOAD_BYTES;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_PAYLOAD_BYTES)
    throw new RangeError(`Fleet options: maxPayloadBytes must be an integer from 1 to ${MAX_PAYLOAD_BYTES}, got ${String(value)}`);
  return value as number;
}

/** The default queue deadline: 24 hours. */
export const DEFAULT_QUEUE_DEADLINE_MS = 24 * 3_600_000;
/** The shortest queue deadline: 1 s (pg-boss defers jobs by whole seconds). */
export const MIN_QUEUE_DEADLINE_MS = 1_000;
/** The longest queue deadline: 365 days. */
export const MAX_QUEUE_DEADLINE_MS = 365 * 24 * 3_600_000;

/** True for a queue deadline (ms) in its domain: an integer from 1 s to 365 days. */
export function isQueueDeadline(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= MIN_QUEUE_DEADLINE_MS && (value as number) <= MAX_QUEUE_DEADLINE_MS;
}

function queueDeadline(value: unknown): number {
  if (value === undefined) return DEFAULT_QUEUE_DEADLINE_MS;
  if (!isQueueDeadline(value))
    throw new RangeError(
      `Fleet options: queueDeadlineMs must be an integer from ${MIN_QUEUE_DEADLINE_MS} to ${MAX_QUEUE_DEADLINE_MS}, got ${String(value)}`,
    );
  return value;
}

function lostApproval(value: unknown): "ask-again" | "suspend" {
  if (value === undefined) return "ask-again";
  if (value === "ask-again" || value === "suspend") return value;
  throw new TypeError(`Fleet options: onLostApproval must be "ask-again" or "suspend", got ${JSON.stringify(value)}`);
}

/** Checks and completes options. @throws TypeError / RangeError naming the field. */
export function resolveOptions(options: FleetOptions): ResolvedFleetOptions {
  if (typeof options !== "object" || options === null) throw new TypeError("Fleet options: expected an object");
  if (typeof options.connectionString !== "string" || options.connectionString === "") {
    throw new TypeError("Fleet options: connectionString must be a non-empty string");
  }
  if (
    options.listenConnectionString !== undefined &&
    (typeof options.listenConnectionString !== "string" || options.listenConnectionString === "")
  ) {
    throw new TypeError("Fleet options: listenConnectionString must be a non-empty string");
  }
  const schema = options.schema ?? "adaptor_fleet";
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(schema)) throw new TypeError(`Fleet options: schema must match [a-z_][a-z0-9_]{0,40}, got ${schema}`);
  const queue = options.queue ?? "adaptor-fleet-runs";
  if (!/^[\w.\-/]{1,100}$/.test(queue)) throw new TypeError(`Fleet options: queue must match [\\w.-/]{1,100}, got ${queue}`);
  return {
    connectionString: options.connectionString,
    listenConnectionString: options.listenConnectionString ?? options.connectionString,
    schema,
    queue,
    runFormat: runFormat(options.runFormat),
    maxQueued: positiveInteger("maxQueued", options.maxQueued, 10_000),
    maxPayloadBytes: maxPayloadBytes(options.maxPayloadBytes),
    maxAttempts: positiveInteger("maxAttempts", options.maxAttempts, 3),
    heartbeatSeconds: positiveInteger("heartbeatSeconds", options.heartbeatSeconds, 10, 10),
    monitorIntervalSeconds: positiveInteger("monitorIntervalSeconds", options.monitorIntervalSeconds, 2),
    retryRuns: options.retryRuns ?? false,
    retentionMs: positiveInteger("retentionMs", options.retentionMs, 7 * 24 * 3_600_000),
    queueDeadlineMs: queueDeadline(options.queueDeadlineMs),
    onLostApproval: lostApproval(options.onLostApproval),
  };
}

/** Throws the closed error for `operation` unless `state` is open. */
export function checkOpen(state: "open" | "draining" | "closed", operation: string): void {
  if (state !== "open") throw new FleetClosedError(operation, state);
}
