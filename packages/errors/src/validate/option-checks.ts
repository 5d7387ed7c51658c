import type { OptionCheck, OptionShape } from "./check-options.js";
import { checkOptions } from "./check-options.js";
import { describeValue } from "./describe-value.js";
import { InvalidOptionError } from "./invalid-option-error.js";
import { MalformedStringError, findStringFlaw } from "./well-formed.js";

/** Longest delay a Node timer takes, in ms (2^31-1, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

function refuse(subject: string, field: string, reason: string): never {
  throw new InvalidOptionError({ subject, field, reason });
}

/** Options of {@link optionChecks}.string. */
export interface StringCheckSettings {
  /** Refuse `""` and blank strings (a value is required when the option is given). Default false. */
  readonly nonEmpty?: boolean;
  /** Accept NUL (text carried inside JSON). Default false: argv, environment and paths cannot carry it. */
  readonly allowNul?: boolean;
}

function string(settings: StringCheckSettings = {}): OptionCheck {
  const wanted = settings.nonEmpty ? "a non-empty string" : "a string";
  return (value, field, subject) => {
    if (typeof value !== "string") refuse(subject, field, `must be ${wanted}, got ${describeValue(value)}`);
    if (settings.nonEmpty && value.trim() === "") refuse(subject, field, `must be ${wanted}, got ${describeValue(value)}`);
    const flaw = findStringFlaw(value, settings);
    if (flaw) throw new MalformedStringError(subject, field, flaw);
  };
}

function boolean(): OptionCheck {
  return (value, field, subject) => {
    if (typeof value !== "boolean") refuse(subject, field, `must be true or false, got ${describeValue(value)}`);
  };
}

/** A safe integer in [min, max]. */
function integer(min: number, max: number = Number.MAX_SAFE_INTEGER): OptionCheck {
  return (value, field, subject) => {
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
      const wanted =
        max !== Number.MAX_SAFE_INTEGER ? `an integer in [${min}, ${max}]` : min === 1 ? "a positive integer" : `an integer >= ${min}`;
      refuse(subject, field, `must be ${wanted}, got ${describeValue(value)}`);
    }
  };
}

/** A finite number in [min, max] (defaults: any finite number). */
function number(min = -Number.MAX_VALUE, max = Number.MAX_VALUE): OptionCheck {
  return (value, field, subject) => {
    if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
      refuse(
        subject,
        field,
        `must be a finite number${min === -Number.MAX_VALUE ? "" : ` >= ${min}`}${max === Number.MAX_VALUE ? "" : ` <= ${max}`}, got ${describeValue(value)}`,
      );
    }
  };
}

/** Options of {@link optionChecks}.timerMs. */
export interface TimerCheckSettings {
  /** Smallest value accepted. Default 0. */
  readonly min?: number;
  /** Refuse 0 (a duration that must be positive). Default false. */
  readonly positive?: boolean;
  /** Accept `Infinity` (meaning "no deadline"). Default false. */
  readonly allowInfinity?: boolean;
}

/** A duration in ms a Node timer can hold: a finite number in [0, {@link MAX_TIMER_MS}]. */
function timerMs(settings: TimerCheckSettings = {}): OptionCheck {
  const low = settings.positive ? "(0" : `[${settings.min ?? 0}`;
  const wanted = `a number of ms in ${low}, ${MAX_TIMER_MS}]${settings.allowInfinity ? " or Infinity (none)" : ""}`;
  return (value, field, subject) => {
    if (typeof value === "number" && value === Infinity && settings.allowInfinity) return;
    const ok =
      typeof value === "number" &&
      Number.isFinite(value) &&
      value >= (settings.min ?? 0) &&
      !(settings.positive && value <= 0) &&
      value <= MAX_TIMER_MS;
    if (!ok) {
      const tooLong = typeof value === "number" && value > MAX_TIMER_MS ? " (longer than a Node timer can wait)" : "";
      refuse(subject, field, `must be ${wanted}, got ${describeValue(value)}${tooLong}`);
    }
  };
}

/** One of the given literal values. */
function oneOf(...values: readonly unknown[]): OptionCheck {
  return (value, field, subject) => {
    if (!values.includes(value))
      refuse(subject, field, `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}, got ${describeValue(value)}`);
  };
}

/** An array whose every item passes `item` (items are named `field[i]`). */
function arrayOf(item: OptionCheck, what = "an array"): OptionCheck {
  return (value, field, subject) => {
    if (!Array.isArray(value)) refuse(subject, field, `must be ${what}, got ${describeValue(value)}`);
    value.forEach((entry: unknown, index) => item(entry, `${field}[${index}]`, subject));
  };
}

/** Options of {@link optionChecks}.recordOf. */
export interface RecordCheckSettings {
  /** Check of each key (named `field` with the key appended). */
  readonly key?: OptionCheck;
  /** Accept `undefined` values (e.g. "remove this variable"). Default false. */
  readonly allowUndefined?: boolean;
}

/** A plain object whose every own value passes `entry` (values are named `field.key`). */
function recordOf(entry: OptionCheck, settings: RecordCheckSettings = {}): OptionCheck {
  return (value, field, subject) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      refuse(subject, field, `must be an object, got ${describeValue(value)}`);
    }
    for (const [key, item] of Object.entries(value)) {
      settings.key?.(key, `${field} key ${JSON.stringify(key)}`, subject);
      if (item === undefined && settings.allowUndefined) continue;
      entry(item, `${field}.${key}`, subject);
    }
  };
}

/**
 * An environment variable map: names non-empty without `=` or NUL, values strings without NUL
 * (well-formed), and `undefined` values when `allowUndefined`.
 */
function env(settings: { readonly allowUndefined?: boolean } = {}): OptionCheck {
  const name: OptionCheck = (value, field, subject) => {
    string({ nonEmpty: true })(value, field, subject);
    if ((value as string).includes("=")) refuse(subject, field, 'must not contain "="');
  };
  return recordOf(string(), { key: name, ...settings });
}

function func(): OptionCheck {
  return (value, field, subject) => {
    if (typeof value !== "function") refuse(subject, field, `must be a function, got ${describeValue(value)}`);
  };
}

/** A non-null object (not an array); with `methods`, one that has those functions. */
function object(what = "an object", methods: readonly string[] = []): OptionCheck {
  return (value, field, subject) => {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      refuse(subject, field, `must be ${what}, got ${describeValue(value)}`);
    const missing = methods.filter((method) => typeof (value as Record<string, unknown>)[method] !== "function");
    if (missing.length > 0) refuse(subject, field, `must be ${what} (missing ${missing.map((m) => `${m}()`).join(", ")})`);
  };
}

/** An `AbortSignal` (any object with a boolean `aborted` and `addEventListener`/`removeEventListener`). */
function abortSignal(): OptionCheck {
  return (value, field, subject) => {
    const signal = value as Partial<AbortSignal> | null;
    const ok =
      typeof signal === "object" &&
      signal !== null &&
      typeof signal.aborted === "boolean" &&
      typeof signal.addEventListener === "function" &&
      typeof signal.removeEventListener === "function";
    if (!ok) refuse(subject, field, `must be an AbortSignal, got ${describeValue(value)}`);
  };
}

/**
 * A nested options object checked with {@link checkOptions} (unknown keys refused), named
 * `field.key`; `hints` as in the settings of {@link checkOptions}.
 */
function shape(inner: OptionShape, hints?: Readonly<Record<string, string>>): OptionCheck {
  return (value, field, subject) => {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      refuse(subject, field, `must be an object, got ${describeValue(value)}`);
    checkOptions(subject, value, inner, { path: field, ...(hints ? { hints } : {}) });
  };
}

/** The first of `checks` that accepts the value wins; otherwise refused as not `what`. */
function anyOf(what: string, ...checks: readonly OptionCheck[]): OptionCheck {
  return (value, field, subject) => {
    for (const check of checks) {
      try {
        check(value, field, subject);
        return;
      } catch (error) {
        if (!(error instanceof InvalidOptionError)) throw error;
      }
    }
    refuse(subject, field, `must be ${what}, got ${describeValue(value)}`);
  };
}

/**
 * Builders of {@link OptionCheck}s for {@link checkOptions}: each returns a check that throws an
 * {@link InvalidOptionError} naming the field (a {@link MalformedStringError} for text a CLI
 * cannot carry). Strings are always checked for lone surrogates, and for NUL unless allowed.
 */
export const optionChecks = Object.freeze({
  string,
  boolean,
  integer,
  number,
  timerMs,
  oneOf,
  arrayOf,
  recordOf,
  env,
  func,
  object,
  abortSignal,
  shape,
  anyOf,
});
