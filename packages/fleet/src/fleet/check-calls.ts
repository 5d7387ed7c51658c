import { checkOptions, InvalidOptionError, type OptionCheck } from "@adaptor/errors";

/** The longest wait a timer can hold (ms): 2^31 - 1, about 24.8 days. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The most slots a host's worker may run at once. */
export const MAX_WORKER_CONCURRENCY = 1_000;

/** How `value` is shown in a refusal: a number or null as written, anything else by its type. */
function shown(value: unknown): string {
  return typeof value === "number" || value === null ? String(value) : typeof value;
}

/**
 * Refuses an age (ms) that is not a finite number >= 0: a fraction or a huge number is an age.
 * @throws InvalidOptionError (`subject`, `field`) saying what was given.
 */
export function checkAge(value: unknown, subject: string, field: string): asserts value is number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
    throw new InvalidOptionError({ subject, field, reason: `must be a finite number of milliseconds >= 0, got ${shown(value)}` });
}

/** {@link checkAge} as an option check. */
const ageOption: OptionCheck = (value, field, subject) => checkAge(value, subject, field);

/**
 * The age `fleet.prune()` was given, as a number or as `{ olderThanMs }`; undefined for none.
 * @throws InvalidOptionError (subject `"fleet prune"`) for an age {@link checkAge} refuses or an unknown option.
 */
export function checkPruneAge(given: unknown): number | undefined {
  if (typeof given === "object" && given !== null && !Array.isArray(given))
    return checkOptions<{ olderThanMs?: number }>("fleet prune", given, { olderThanMs: ageOption }).olderThanMs;
  if (given !== undefined) checkAge(given, "fleet prune", "olderThanMs");
  return given;
}

/**
 * Refuses an approval id that is not a non-empty string, or one holding U+0000 (which no asked
 * approval has, and PostgreSQL's `text` cannot hold).
 * @throws InvalidOptionError (`subject`, `field`) saying what was given.
 */
export function checkApprovalId(value: unknown, subject: string, field = "approvalId"): asserts value is string {
  if (typeof value !== "string" || value === "")
    throw new InvalidOptionError({
      subject,
      field,
      reason: `must be a non-empty string, got ${value === "" ? "an empty one" : shown(value)}`,
    });
  if (value.includes("\0")) throw new InvalidOptionError({ subject, field, reason: "must not hold U+0000 (no approval's id does)" });
}

/** {@link checkApprovalId} as an option check. */
export const approvalIdOption: OptionCheck = (value, field, subject) => checkApprovalId(value, subject, field);

/**
 * Refuses a cancel reason that is not a string, or one holding U+0000 (PostgreSQL's `text` cannot hold it).
 * @throws InvalidOptionError (subject `"fleet cancel"`, field `reason`).
 */
export function checkCancelReason(value: unknown): asserts value is string | undefined {
  if (value === undefined) return;
  if (typeof value !== "string")
    throw new InvalidOptionError({ subject: "fleet cancel", field: "reason", reason: `must be a string, got ${shown(value)}` });
  if (value.includes("\0")) throw new InvalidOptionError({ subject: "fleet cancel", field: "reason", reason: "must not hold U+0000" });
}

/**
 * Checks `fleet.drain()`'s options: known keys only, a `timeoutMs` a finite number from 0 to
 * {@link MAX_TIMER_MS}.
 * @throws InvalidOptionError (subject `"fleet drain"`) naming the option.
 */
export function checkDrainOptions(options: unknown): { readonly timeoutMs?: number } {
  return checkOptions<{ timeoutMs?: number }>("fleet drain", options, {
    timeoutMs: (value, field, subject) => {
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > MAX_TIMER_MS)
        throw new InvalidOptionError({
          subject,
          field,
          reason: `must be a number of milliseconds from 0 to ${MAX_TIMER_MS}, got ${shown(value)}`,
        });
    },
  });
}

/**
 * Checks `fleet.worker()`'s options: known keys only, a `concurrency` an integer from 1 to
 * {@link MAX_WORKER_CONCURRENCY}, a `name` a non-empty string.
 * @throws InvalidOptionError (subject `"fleet worker"`) naming the option.
 */
export function checkWorkerOptions(options: unknown): { readonly concurrency?: number; readonly name?: string } {
  return checkOptions<{ concurrency?: number; name?: string }>("fleet worker", options, {
    concurrency: (value, field, subject) => {
      if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_WORKER_CONCURRENCY)
        throw new InvalidOptionError({
          subject,
          field,
          reason: `must be an integer from 1 to ${MAX_WORKER_CONCURRENCY}, got ${shown(value)}`,
        });
    },
    name: (value, field, subject) => {
      if (typeof value !== "string" || value === "")
        throw new InvalidOptionError({
          subject,
          field,
          reason: `must be a non-empty string, got ${value === "" ? "an empty one" : shown(value)}`,
        });
    },
  });
}

/**
 * Refuses a worker's agent that is neither an agent (an object with `stream` and `thread`, as
 * `Agent` has) nor a function making one.
 * @throws TypeError (`"fleet worker: agent ..."`) saying what was given.
 */
export function checkWorkerAgent(agent: unknown): void {
  if (typeof agent === "function") return;
  const candidate = agent as { stream?: unknown; thread?: unknown } | null;
  if (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.stream === "function" &&
    typeof candidate.thread === "function"
  )
    return;
  throw new TypeError(`fleet worker: agent must be an Agent or a function making one, got ${shown(agent)}`);
}
