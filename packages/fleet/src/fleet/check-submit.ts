import { checkOptions, InvalidOptionError, type OptionCheck } from "@adaptor/errors";
import { checkStoredDecision, type StoredApprovalDecision } from "@adaptor/threadstore";
import { toJsonEvent, type JsonValue } from "@adaptor/sessionrecorder";

const SUBJECT = "fleet submit";

const any: OptionCheck = () => {};

/** The decision of a `resume`: the thread store's own check, as `thread.answer` meets it. */
const decision: OptionCheck = (value, field, subject) => {
  try {
    checkStoredDecision(value as StoredApprovalDecision);
  } catch (error) {
    throw new InvalidOptionError(
      { subject, field, reason: (error as Error).message.replace(/^answerPendingApproval: /, "") },
      { cause: error },
    );
  }
};

const resume: OptionCheck = (value, field, subject) => {
  checkOptions(subject, value, { approvalId: any, decision }, { path: field });
  if ((value as { decision?: unknown }).decision === undefined) {
    throw new InvalidOptionError({ subject, field: `${field}.decision`, reason: "is required" });
  }
};

/** The options `submit` knows; their values are checked where they are used. */
const SUBMIT_SHAPE = { threadKey: any, runOptions: any, runId: any, resume };

/**
 * Checks the shape of `submit`'s options: unknown keys and a malformed `resume` (unknown keys, a
 * decision the thread store would refuse) are refused before anything is written.
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
