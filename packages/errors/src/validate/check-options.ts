import { closestOption } from "./closest-option.js";
import { describeValue } from "./describe-value.js";
import { InvalidOptionError } from "./invalid-option-error.js";

/**
 * Checks one option value (never `undefined`: absent options are skipped) and throws an
 * {@link InvalidOptionError} naming `field` inside `subject` when it is refused.
 */
export type OptionCheck = (value: unknown, field: string, subject: string) => void;

/** The known options of an options object, each with its check. Every option is optional. */
export type OptionShape = Readonly<Record<string, OptionCheck>>;

/** Options of {@link checkOptions}. */
export interface CheckOptionsSettings {
  /** Accept `undefined` and `null` as "no options" (an empty object). Default: only `undefined`. */
  readonly allowNull?: boolean;
  /**
   * Names that belong elsewhere, with where: an unknown key found here gets that hint instead of
   * a spelling suggestion, e.g. `{ threadStore: "an Agent option" }` (followed by its `hints`
   * entry when it has one too).
   */
  readonly elsewhere?: Readonly<Record<string, string>>;
  /**
   * Hints for names other libraries use for an option, with what to write here instead: an
   * unknown key found here gets `; <hint>` instead of a spelling suggestion, e.g.
   * `{ maxTurns: "the Claude Agent SDK's maxTurns is budget.maxTurns here" }`.
   */
  readonly hints?: Readonly<Record<string, string>>;
  /** Where this object sits inside `subject` (a nested object); prefixed to every field name. Default `""`. */
  readonly path?: string;
}

/**
 * Checks an options object against `shape` and returns a frozen snapshot of it (each option read
 * exactly once, so getters cannot change a value after the check; `undefined` options are kept
 * as given).
 *
 * Refused, in this order: a value that is not a plain object; an own key `shape` does not know
 * (with where it belongs, another library's name for an option, or the closest known name as
 * `suggestion`, when one is close); an option whose getter throws
 * (the thrown error is the `cause`); an option its check refuses. `undefined` options are skipped.
 *
 * @param subject - what the options are, for messages: `"run options"`, `"claude config"`.
 * @throws InvalidOptionError (or its subclass `MalformedStringError`) naming the field.
 */
export function checkOptions<T extends object>(
  subject: string,
  value: unknown,
  shape: OptionShape,
  settings: CheckOptionsSettings = {},
): T {
  if (value === undefined || (value === null && settings.allowNull)) return Object.freeze({}) as T;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidOptionError({ subject, field: settings.path ?? "", reason: `must be an object, got ${describeValue(value)}` });
  }
  const at = (key: string): string => (settings.path ? `${settings.path}.${key}` : key);
  const known = Object.keys(shape);
  const keys = Object.keys(value);
  for (const key of keys) {
    if (Object.hasOwn(shape, key)) continue;
    const place = settings.elsewhere && Object.hasOwn(settings.elsewhere, key) ? settings.elsewhere[key] : undefined;
    const named = settings.hints && Object.hasOwn(settings.hints, key) ? settings.hints[key] : undefined;
    const suggestion = place === undefined && named === undefined ? closestOption(key, known) : undefined;
    // A name both kinds of hint know (another level's option that a peer library names alike) gets both.
    const hint =
      place !== undefined || named !== undefined
        ? `${place !== undefined ? `; it is ${place}` : ""}${named !== undefined ? `; ${named}` : ""}`
        : suggestion !== undefined
          ? `; did you mean ${JSON.stringify(suggestion)}?`
          : "";
    throw new InvalidOptionError({ subject, field: at(key), reason: `is not a known option${hint}`, suggestion });
  }
  const snapshot: Record<string, unknown> = {};
  for (const key of keys) {
    let option: unknown;
    try {
      option = (value as Record<string, unknown>)[key];
    } catch (error) {
      throw new InvalidOptionError({ subject, field: at(key), reason: "could not be read: its getter threw" }, { cause: error });
    }
    if (option !== undefined) shape[key]!(option, at(key), subject);
    snapshot[key] = option;
  }
  return Object.freeze(snapshot) as T;
}
