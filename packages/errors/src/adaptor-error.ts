import { isSentinel, type Sentinel } from "./sentinel.js";

/** Brand key prefix: a class `X` stamps `Symbol.for("adaptor.error.X")` on its instances. */
export const ERROR_BRAND_PREFIX = "adaptor.error.";

const SENTINELS: unique symbol = Symbol.for("adaptor.error.sentinels") as never;

/** Options accepted by {@link AdaptorError} and its subclasses. */
export interface AdaptorErrorOptions {
  /** The error this one wraps; kept on `cause` and walked by `isError` / `findError`. */
  cause?: unknown;
  /** Identities this error carries, in addition to the class's own `static sentinel`. */
  sentinel?: Sentinel | readonly Sentinel[];
}

/** A class that brands its instances; see {@link AdaptorError.brand}. */
export interface BrandedErrorClass<T extends Error = Error> {
  readonly brand: symbol;
  readonly sentinel?: Sentinel | undefined;
  readonly prototype: T;
}

/**
 * Base of every error thrown by adaptor packages.
 *
 * Each subclass declares `static override readonly brand = Symbol.for("adaptor.error.<Name>")`;
 * instances carry every brand of their class chain, so `instanceof` and `findError` work across two
 * copies of a package in one process (the ai SDK's `isInstance` markers, MCP's cross-bundle brand).
 * A subclass may declare `static override readonly sentinel` that all its instances match.
 */
export class AdaptorError extends Error {
  /** The brand of this class; subclasses must declare their own. */
  static readonly brand: symbol = Symbol.for(`${ERROR_BRAND_PREFIX}AdaptorError`);
  /** Sentinel every instance of this class matches, if any. */
  static readonly sentinel: Sentinel | undefined = undefined;

  /** Branded `instanceof`: true for instances made by any copy of this class. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(value, this.brand);
  }

  /** Sentinels this error matches directly (the class's own, then the ones passed in). */
  get sentinels(): readonly Sentinel[] {
    return (this as unknown as { [SENTINELS]: readonly Sentinel[] })[SENTINELS];
  }

  constructor(message: string, options: AdaptorErrorOptions = {}) {
    super(message, "cause" in options ? { cause: options.cause } : undefined);
    const sentinels: Sentinel[] = [];
    for (let ctor = new.target as unknown as BrandedErrorClass | undefined; ctor && "brand" in ctor;) {
      if (Object.hasOwn(ctor, "brand")) Object.defineProperty(this, ctor.brand, { value: true });
      if (Object.hasOwn(ctor, "sentinel") && ctor.sentinel) sentinels.push(ctor.sentinel);
      ctor = Object.getPrototypeOf(ctor) as BrandedErrorClass | undefined;
    }
    const extra = options.sentinel;
    if (extra) sentinels.push(...(isSentinel(extra) ? [extra] : (extra as readonly Sentinel[])));
    Object.defineProperty(this, SENTINELS, { value: Object.freeze(sentinels) });
    const brand = (new.target as unknown as BrandedErrorClass).brand;
    Object.defineProperty(this, "name", {
      value: brand.description?.slice(ERROR_BRAND_PREFIX.length) ?? new.target.name,
      configurable: true,
      writable: true,
    });
  }
}

/** True when `value` carries `brand` (set by any copy of the branded class). */
export function hasBrand(value: unknown, brand: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/** The sentinels an error node carries, read by brand so foreign copies count too. */
export function carriedSentinels(value: unknown): readonly Sentinel[] {
  if (typeof value !== "object" || value === null) return [];
  const list = (value as Record<symbol, unknown>)[SENTINELS];
  return Array.isArray(list) ? (list as Sentinel[]) : [];
}
