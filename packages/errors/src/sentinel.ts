/** Brand key stamped on every sentinel; the value is the sentinel's id. */
export const SENTINEL_BRAND: unique symbol = Symbol.for("adaptor.sentinel") as never;

/** Where sentinels live process-wide, so a second copy of a package gets the very same object. */
const REGISTRY: unique symbol = Symbol.for("adaptor.sentinel.registry") as never;

/**
 * A unique, frozen error identity owned by one package (docs/design.md "Errors in TypeScript").
 * Matched with `isError(err, sentinel)`, never by message. Not thrown bare: thrown errors carry it.
 */
export interface Sentinel {
  /** Stable, globally unique id such as `"adaptor.ThreadBusy"`. */
  readonly id: string;
  /** Short text for people, e.g. `"thread busy"`. */
  readonly message: string;
  /** Broader identities this one also matches (`ErrApprovalExpired` also matches `ErrApprovalResolved`). */
  readonly also: readonly Sentinel[];
  readonly [SENTINEL_BRAND]: string;
}

type Registry = Map<string, Sentinel>;

function registry(): Registry {
  const holder = globalThis as unknown as { [REGISTRY]?: Registry };
  holder[REGISTRY] ??= new Map();
  return holder[REGISTRY];
}

/**
 * Makes (or, when a copy of the owner package already made it, returns) the sentinel `id`.
 * Identity survives two copies of a package in one process: both get the same object, and matching
 * compares brands, not references.
 *
 * @param id - globally unique id, `<package>.<Name>` by convention.
 * @param message - text for people.
 * @param options.also - identities this sentinel also matches.
 */
export function sentinel(id: string, message: string, options: { also?: readonly Sentinel[] } = {}): Sentinel {
  const known = registry().get(id);
  if (known) return known;
  const value: Sentinel = Object.freeze({
    id,
    message,
    also: Object.freeze([...(options.also ?? [])]),
    [SENTINEL_BRAND]: id,
    toString: () => `${id}: ${message}`,
  });
  registry().set(id, value);
  return value;
}

/** True when `value` is a sentinel made by any copy of `@adaptor/errors`. */
export function isSentinel(value: unknown): value is Sentinel {
  return typeof value === "object" && value !== null && typeof (value as Sentinel)[SENTINEL_BRAND] === "string";
}

/** True when `candidate` is `target` or one of the identities it also matches. */
export function sentinelMatches(candidate: Sentinel, target: Sentinel, seen = new Set<string>()): boolean {
  const id = candidate[SENTINEL_BRAND];
  if (id === target[SENTINEL_BRAND]) return true;
  if (seen.has(id)) return false;
  seen.add(id);
  return candidate.also.some((parent) => sentinelMatches(parent, target, seen));
}
