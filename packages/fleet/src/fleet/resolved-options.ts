import { checkOptions, InvalidOptionError, type OptionCheck } from "@adaptor/errors";
import { connectionStringProblem } from "@adaptor/errors/internal";
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

const SUBJECT = "Fleet options";

/** `value` when it is an integer from `min` to `max`, `fallback` when undefined. @throws InvalidOptionError naming `name`. */
function integer(name: string, value: unknown, fallback: number, min: number, max: number, unit = ""): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max)
    throw new InvalidOptionError({
      subject: SUBJECT,
      field: name,
      reason: `must be an integer from ${min} to ${max}${unit}, got ${typeof value === "number" || value === null ? String(value) : typeof value}`,
    });
  return value as number;
}

/** The most attempts a run may be given (pg-boss keeps its retry limit as an `int`). */
export const MAX_ATTEMPTS = 1_000;
/** The longest heartbeat and supervision interval (s): 24 hours, the longest pg-boss takes. */
export const MAX_INTERVAL_SECONDS = 86_400;
/** The longest retention (ms): 2^31 - 1 s (about 68 years), the longest pg-boss keeps a job by. */
export const MAX_RETENTION_MS = (2 ** 31 - 1) * 1000;
/** The most unfinished runs `maxQueued` may allow. */
export const MAX_QUEUED = 2 ** 31 - 1;

/** The default bound of a submitted run's input: 64 MiB. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;
/** The largest bound of a submitted run's input: 256 MiB, the longest string `jsonb` keeps. */
export const MAX_PAYLOAD_BYTES = 256 * 1024 * 1024;

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

function flag(name: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean")
    throw new InvalidOptionError({
      subject: SUBJECT,
      field: name,
      reason: `must be a boolean, got ${value === null ? "null" : typeof value}`,
    });
  return value;
}

function lostApproval(value: unknown): "ask-again" | "suspend" {
  if (value === undefined) return "ask-again";
  if (value === "ask-again" || value === "suspend") return value;
  throw new TypeError(`Fleet options: onLostApproval must be "ask-again" or "suspend", got ${JSON.stringify(value)}`);
}

const given: OptionCheck = () => {};

/** Every option a fleet knows: the checks below judge the values, this refuses an unknown key. */
const KNOWN: Readonly<Record<keyof FleetOptions, OptionCheck>> = {
  connectionString: given,
  listenConnectionString: given,
  schema: given,
  queue: given,
  runFormat: given,
  threadStore: given,
  maxQueued: given,
  maxAttempts: given,
  heartbeatSeconds: given,
  monitorIntervalSeconds: given,
  retryRuns: given,
  onLostApproval: given,
  queueDeadlineMs: given,
  maxPayloadBytes: given,
  retentionMs: given,
  meter: given,
};

/**
 * Checks and completes options.
 * @throws TypeError naming the field for a `connectionString` or `listenConnectionString` that is
 *   not a connection URL or socket path `pg` can parse (the value is never quoted: it may hold a
 *   password), a bad `schema`, `queue` or `onLostApproval`; InvalidOptionError (subject
 *   `"Fleet options"`, field: the option) for an unknown option (with the closest known name as
 *   `suggestion`) or a number out of its domain.
 */
export function resolveOptions(options: FleetOptions): ResolvedFleetOptions {
  if (typeof options !== "object" || options === null) throw new TypeError("Fleet options: expected an object");
  checkOptions(SUBJECT, options, KNOWN);
  for (const field of ["connectionString", "listenConnectionString"] as const) {
    if (field === "listenConnectionString" && options[field] === undefined) continue;
    const problem = connectionStringProblem(options[field]);
    if (problem !== undefined) throw new TypeError(`Fleet options: ${field} ${problem}`);
  }
  const schema = options.schema ?? "adaptor_fleet";
  if (typeof schema !== "string" || !/^[a-z_][a-z0-9_]{0,40}$/.test(schema))
    throw new TypeError(
      `Fleet options: schema must match [a-z_][a-z0-9_]{0,40}, got ${typeof schema === "string" ? schema : typeof schema}`,
    );
  const queue = options.queue ?? "adaptor-fleet-runs";
  if (typeof queue !== "string" || !/^[\w.\-/]{1,100}$/.test(queue))
    throw new TypeError(`Fleet options: queue must match [\\w.-/]{1,100}, got ${typeof queue === "string" ? queue : typeof queue}`);
  return {
    connectionString: options.connectionString,
    listenConnectionString: options.listenConnectionString ?? options.connectionString,
    schema,
    queue,
    runFormat: integer("runFormat", options.runFormat, RUN_FORMAT, 1, RUN_FORMAT),
    maxQueued: integer("maxQueued", options.maxQueued, 10_000, 1, MAX_QUEUED),
    maxPayloadBytes: integer("maxPayloadBytes", options.maxPayloadBytes, DEFAULT_MAX_PAYLOAD_BYTES, 1, MAX_PAYLOAD_BYTES),
    maxAttempts: integer("maxAttempts", options.maxAttempts, 3, 1, MAX_ATTEMPTS),
    heartbeatSeconds: integer("heartbeatSeconds", options.heartbeatSeconds, 10, 10, MAX_INTERVAL_SECONDS, " (s)"),
    monitorIntervalSeconds: integer("monitorIntervalSeconds", options.monitorIntervalSeconds, 2, 1, MAX_INTERVAL_SECONDS, " (s)"),
    retryRuns: flag("retryRuns", options.retryRuns),
    retentionMs: integer("retentionMs", options.retentionMs, 7 * 24 * 3_600_000, 1, MAX_RETENTION_MS, " (ms)"),
    queueDeadlineMs: integer(
      "queueDeadlineMs",
      options.queueDeadlineMs,
      DEFAULT_QUEUE_DEADLINE_MS,
      MIN_QUEUE_DEADLINE_MS,
      MAX_QUEUE_DEADLINE_MS,
    ),
    onLostApproval: lostApproval(options.onLostApproval),
  };
}

/** Throws the closed error for `operation` unless `state` is open. */
export function checkOpen(state: "open" | "draining" | "closed", operation: string): void {
  if (state !== "open") throw new FleetClosedError(operation, state);
}
