// The brand rules of DESIGN.md "Errors in TypeScript", as a checker over module namespaces:
// - every exported class whose prototype chain includes Error declares its OWN static `brand`,
//   equal to Symbol.for("adaptor.error." + ClassName), and no two different classes share a brand;
// - that class extends AdaptorError (recognised by brand, so any copy counts): only its constructor
//   stamps the brands on instances, which is what findError and instanceof read;
// - every exported value that looks like a sentinel (a name starting with `Err`, or an object with
//   string `id` and `message`) carries the Symbol.for("adaptor.sentinel") brand equal to its id,
//   is frozen, and no two different sentinel objects share an id.

export const ERROR_BRAND_PREFIX = "adaptor.error.";
export const SENTINEL_BRAND_KEY = Symbol.for("adaptor.sentinel");

/**
 * `Err`-prefixed exports that are deliberately not sentinels. Keep this list short and justified:
 * `ErrCode` is the frozen table of the 13 seed 000 classification codes (`DriverError.code`).
 */
export const NOT_SENTINELS: ReadonlySet<string> = new Set(["ErrCode"]);

/** What the checker saw, and what it found wrong. */
export interface BrandReport {
  /** One line per violation, `"<module>.<export>: <problem>"`. */
  readonly problems: readonly string[];
  /** Names of the error classes checked (deduplicated by class). */
  readonly errorClasses: readonly string[];
  /** Ids of the sentinels checked (deduplicated by object). */
  readonly sentinelIds: readonly string[];
}

type ErrorClass = (abstract new (...args: never[]) => Error) & { readonly name: string };

/** True for a class (function with a prototype) whose prototype chain includes Error.prototype. */
export function isErrorClass(value: unknown): value is ErrorClass {
  if (typeof value !== "function") return false;
  const prototype: unknown = (value as { prototype?: unknown }).prototype;
  return typeof prototype === "object" && prototype !== null && Object.prototype.isPrototypeOf.call(Error.prototype, prototype);
}

const ROOT_BRAND = Symbol.for(`${ERROR_BRAND_PREFIX}AdaptorError`);

/** True when `cls` is, or inherits from, a class whose own brand is AdaptorError's (any copy of it). */
export function extendsAdaptorError(cls: object): boolean {
  for (let ctor: object | null = cls; ctor && ctor !== Function.prototype; ctor = Object.getPrototypeOf(ctor) as object | null) {
    if (Object.hasOwn(ctor, "brand") && (ctor as { brand?: unknown }).brand === ROOT_BRAND) return true;
  }
  return false;
}

/** True for an export that claims, by name or by shape, to be a sentinel. */
export function looksLikeSentinel(exportName: string, value: unknown): boolean {
  if (/^Err[A-Z0-9_]/.test(exportName) && !NOT_SENTINELS.has(exportName)) return true;
  if (typeof value !== "object" || value === null) return false;
  const { id, message } = value as { id?: unknown; message?: unknown };
  return typeof id === "string" && typeof message === "string";
}

/** Checks every export of `modules` (module name → namespace) against the brand rules. */
export function checkBrands(modules: Readonly<Record<string, Readonly<Record<string, unknown>>>>): BrandReport {
  const problems: string[] = [];
  const classes = new Set<ErrorClass>();
  const brandOwner = new Map<symbol, { cls: ErrorClass; where: string }>();
  const idOwner = new Map<string, { value: object; where: string }>();

  for (const [moduleName, namespace] of Object.entries(modules)) {
    for (const [exportName, value] of Object.entries(namespace)) {
      const where = `${moduleName}.${exportName}`;
      if (isErrorClass(value)) {
        classes.add(value);
        const expected = Symbol.for(ERROR_BRAND_PREFIX + value.name);
        if (!Object.hasOwn(value, "brand")) {
          problems.push(
            `${where}: error class ${value.name} has no own static brand (expected Symbol.for("${ERROR_BRAND_PREFIX}${value.name}"))`,
          );
          continue;
        }
        const brand: unknown = (value as unknown as { brand: unknown }).brand;
        if (typeof brand !== "symbol") {
          problems.push(`${where}: error class ${value.name} has a static brand that is not a symbol`);
          continue;
        }
        if (brand !== expected) {
          problems.push(
            `${where}: error class ${value.name} has brand ${String(brand)}, expected Symbol.for("${ERROR_BRAND_PREFIX}${value.name}")`,
          );
        }
        if (!extendsAdaptorError(value)) {
          problems.push(`${where}: error class ${value.name} does not extend AdaptorError, so its instances carry no brand`);
        }
        const owner = brandOwner.get(brand);
        if (owner && owner.cls !== value) {
          problems.push(`${where}: error class ${value.name} shares brand ${String(brand)} with a different class at ${owner.where}`);
        } else if (!owner) {
          brandOwner.set(brand, { cls: value, where });
        }
        continue;
      }
      if (!looksLikeSentinel(exportName, value)) continue;
      if (typeof value !== "object" || value === null) {
        problems.push(`${where}: looks like a sentinel but its type is ${typeof value}, not a branded sentinel object`);
        continue;
      }
      const brandValue: unknown = (value as Record<symbol, unknown>)[SENTINEL_BRAND_KEY];
      const id: unknown = (value as { id?: unknown }).id;
      if (typeof brandValue !== "string") {
        problems.push(`${where}: looks like a sentinel but lacks the Symbol.for("adaptor.sentinel") brand`);
        continue;
      }
      if (brandValue !== id)
        problems.push(`${where}: sentinel brand ${JSON.stringify(brandValue)} differs from its id ${JSON.stringify(id)}`);
      if (!Object.isFrozen(value)) problems.push(`${where}: sentinel ${brandValue} is not frozen`);
      const owner = idOwner.get(brandValue);
      if (owner && owner.value !== value) {
        problems.push(`${where}: sentinel id ${brandValue} is also used by a different object at ${owner.where}`);
      } else if (!owner) {
        idOwner.set(brandValue, { value, where });
      }
    }
  }
  return {
    problems,
    errorClasses: [...classes].map((cls) => cls.name).sort(),
    sentinelIds: [...idOwner.keys()].sort(),
  };
}
