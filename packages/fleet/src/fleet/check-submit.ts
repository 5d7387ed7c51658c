import { validate as isUuid } from "uuid";
import { checkOptions, DriverError, ErrCode, InvalidOptionError, type OptionCheck, type OptionShape } from "@adaptor/errors";
import { checkStoredDecision, type StoredApprovalDecision } from "@adaptor/threadstore";
import { toJsonEvent, type JsonValue } from "@adaptor/sessionrecorder";
import type { RememberRule } from "adaptor";
import { updatedInputError } from "adaptor/internal";

import { approvalIdOption } from "./check-calls.js";
import { isQueueDeadline, MAX_QUEUE_DEADLINE_MS, MIN_QUEUE_DEADLINE_MS } from "./resolved-options.js";

const SUBJECT = "fleet submit";

/**
 * An answer's decision as `fleet.answer` takes and records it: a stored decision, and on an
 * approve or a deny the rule the run remembers with it (`remember`, as `request.approve({ remember })`
 * and `request.deny(reason, { remember })` take it).
 */
export type FleetApprovalDecision =
  | (Extract<StoredApprovalDecision, { outcome: "approve" }> & { readonly remember?: RememberRule })
  | (Extract<StoredApprovalDecision, { outcome: "deny" }> & { readonly remember?: RememberRule })
  | Extract<StoredApprovalDecision, { outcome: "answer" }>;

const any: OptionCheck = () => {};

/** The fields each decision outcome has: any other key is refused, as in the rest of `submit`'s options. */
const DECISION_SHAPES: Record<StoredApprovalDecision["outcome"], OptionShape> = {
  approve: { outcome: any, updatedInput: any },
  deny: { outcome: any, reason: any },
  answer: { outcome: any, choice: any },
};

/** The fields of each outcome of an answer's decision: an approve or a deny may carry the rule to remember. */
const ANSWER_DECISION_SHAPES: Record<StoredApprovalDecision["outcome"], OptionShape> = {
  approve: { ...DECISION_SHAPES.approve, remember: any },
  deny: { ...DECISION_SHAPES.deny, remember: any },
  answer: DECISION_SHAPES.answer,
};

/**
 * The decision of a `resume`: the thread store's own check, as `thread.answer` meets it, then no
 * key its outcome does not have (a misspelt `reasn` would otherwise be stored and dropped).
 */
const decision: OptionCheck = (value, field, subject) => {
  try {
    checkStoredDecision(value as StoredApprovalDecision);
  } catch (error) {
    throw new InvalidOptionError(
      { subject, field, reason: (error as Error).message.replace(/^answerPendingApproval: /, "") },
      { cause: error },
    );
  }
  checkOptions(subject, value, DECISION_SHAPES[(value as StoredApprovalDecision).outcome], { path: field });
};

/**
 * Checks the shape of an answer's decision as `fleet.answer` takes it: the thread store's own
 * check (a `TypeError` for another shape, as `thread.answer` throws), then no key its outcome does
 * not have, then an approve's `updatedInput` a plain object, as `request.approve()` checks it.
 * @throws TypeError for a decision that is not an approve, a deny with a string reason or an
 *   answer with a string choice; InvalidOptionError
 *   (`subject`, field `decision.<key>`) for a key its outcome does not have (`remember` is an
 *   approve's or a deny's, checked against the request it answers), or (field
 *   `updatedInput`) an edited input that is not a plain object.
 */
export function checkDecisionShape(value: unknown, subject: string): asserts value is FleetApprovalDecision {
  // An approve's edited input is checked against the request it answers (see `decisionRefusal`).
  const edited = typeof value === "object" && value !== null && (value as { outcome?: unknown }).outcome === "approve";
  try {
    checkStoredDecision((edited ? { outcome: "approve" } : value) as StoredApprovalDecision);
  } catch (error) {
    throw new TypeError(`${subject}: ${(error as Error).message.replace(/^answerPendingApproval: /, "")}`, { cause: error });
  }
  checkOptions(subject, value, ANSWER_DECISION_SHAPES[(value as StoredApprovalDecision).outcome], { path: "decision" });
  const { updatedInput } = value as { updatedInput?: unknown };
  if (edited && updatedInput !== undefined) {
    const invalid = updatedInputError(updatedInput, subject);
    if (invalid) throw invalid;
  }
}

/** A run id: a UUID (the fleet's tables key runs by one). */
const runId: OptionCheck = (value, field, subject) => checkRunId(value, subject, field);

const resume: OptionCheck = (value, field, subject) => {
  checkOptions(subject, value, { approvalId: approvalIdOption, decision }, { path: field });
  for (const key of ["approvalId", "decision"])
    if ((value as Record<string, unknown>)[key] === undefined)
      throw new InvalidOptionError({ subject, field: `${field}.${key}`, reason: "is required" });
};

/** A queue deadline (ms): an integer from 1 s to 365 days. */
const queueDeadlineMs: OptionCheck = (value, field, subject) => {
  if (!isQueueDeadline(value))
    throw new InvalidOptionError({
      subject,
      field,
      reason: `must be an integer from ${MIN_QUEUE_DEADLINE_MS} to ${MAX_QUEUE_DEADLINE_MS} (ms), got ${typeof value === "number" ? String(value) : typeof value}`,
    });
};

/** The options `submit` knows; their values are checked where they are used. */
const SUBMIT_SHAPE = { threadKey: any, runOptions: any, runId, resume, queueDeadlineMs };

/**
 * Refuses a run id that is not a UUID (any version, any case).
 * @throws InvalidOptionError (`subject`, `field`) saying what was given.
 */
export function checkRunId(value: unknown, subject: string, field = "runId"): void {
  if (typeof value === "string" && isUuid(value)) return;
  const given = typeof value === "string" ? JSON.stringify(value) : `a ${value === null ? "null" : typeof value}`;
  throw new InvalidOptionError({ subject, field, reason: `must be a UUID, got ${given}` });
}

/**
 * Checks the shape of `submit`'s options: unknown keys, a `runId` that is not a UUID and a
 * malformed `resume` (unknown keys, in it or in its decision; a decision the thread store would
 * refuse) are refused before anything is written.
 * @throws InvalidOptionError (subject `"fleet submit"`) naming the option.
 */
export function checkSubmitOptions(options: unknown): void {
  checkOptions(SUBJECT, options, SUBMIT_SHAPE);
}

/**
 * The run options as JSON, refusing what JSON would drop or cannot hold: a function (handlers
 * cannot cross hosts: they belong on the worker's Agent), a bigint, a symbol, a cyclic value, or
 * an object that is neither plain, an array, nor has `toJSON` (e.g. an `AbortSignal`).
 * @throws InvalidOptionError (subject `"run options"`) naming the option's path.
 */
export function jsonRunOptions(runOptions: unknown): Record<string, JsonValue> {
  if (runOptions === undefined) return {};
  if (typeof runOptions !== "object" || runOptions === null || Array.isArray(runOptions)) {
    throw new InvalidOptionError({ subject: "run options", field: "", reason: "must be a JSON object" });
  }
  checkJson(runOptions, "", new Set());
  return toJsonEvent(runOptions) as Record<string, JsonValue>;
}

function checkJson(value: unknown, path: string, ancestors: Set<object>): void {
  const refuse = (reason: string): never => {
    throw new InvalidOptionError({ subject: "run options", field: path, reason });
  };
  if (typeof value === "function") refuse("is a function, which cannot reach another host: give it to the worker's Agent");
  if (typeof value === "bigint") refuse("is a bigint, which JSON cannot hold");
  if (typeof value === "symbol") refuse("is a symbol, which JSON cannot hold");
  if (typeof value !== "object" || value === null) return;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) refuse("is not JSON (an instance of a class)");
  if (ancestors.has(value)) refuse("is cyclic, which JSON cannot hold");
  ancestors.add(value);
  for (const [key, item] of Object.entries(value))
    checkJson(item, path === "" ? key : Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`, ancestors);
  ancestors.delete(value);
}

/**
 * Refuses a run's input (its prompt text, parts, run options and resume) past `limit` bytes of
 * UTF-8, counted before anything is sent to PostgreSQL: the prompt text first, so a huge prompt
 * is refused without serialising anything.
 * @throws DriverError (device `fleet`, op `fleet submit`, code `RESOURCE_EXHAUSTED`) naming the size and the limit.
 */
export function checkPayloadSize(limit: number, text: string, ...json: unknown[]): void {
  let bytes = Buffer.byteLength(text);
  for (const value of json) {
    if (bytes > limit) break;
    if (value !== undefined) bytes += Buffer.byteLength(JSON.stringify(value));
  }
  if (bytes > limit)
    throw new DriverError({
      op: "fleet submit",
      device: "fleet",
      code: ErrCode.ResourceExhausted,
      cause: `the run's input (prompt, parts, run options, resume) takes more than ${limit} bytes (${bytes} counted), past the fleet's maxPayloadBytes; nothing was stored`,
    });
}
