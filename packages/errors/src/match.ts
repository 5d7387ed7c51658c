import { carriedSentinels, hasBrand, type BrandedErrorClass } from "./adaptor-error.js";
import { isSentinel, sentinelMatches, type Sentinel } from "./sentinel.js";

/**
 * Visits `err` and everything it wraps, depth first: the node itself, then `cause`, then each
 * entry of an `AggregateError`'s `errors`. Cycles are visited once. Stops when `visit` returns true.
 */
export function walkError(err: unknown, visit: (node: unknown) => boolean): boolean {
  const seen = new Set<unknown>();
  const stack: unknown[] = [err];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === undefined || node === null || seen.has(node)) continue;
    seen.add(node);
    if (visit(node)) return true;
    if (typeof node !== "object") continue;
    const next: unknown[] = [];
    if ("cause" in node) next.push((node as { cause?: unknown }).cause);
    if (node instanceof AggregateError) next.push(...(node.errors as unknown[]));
    stack.push(...next.reverse());
  }
  return false;
}

/**
 * Go's `errors.Is`: true when `err`, a sentinel it carries, or anything on its `cause` /
 * `AggregateError.errors` chain is `target` (or a sentinel that also matches `target`).
 * Compares brands, so sentinels from a second copy of a package match.
 */
export function isError(err: unknown, target: Sentinel): boolean {
  return walkError(err, (node) => {
    if (isSentinel(node) && sentinelMatches(node, target)) return true;
    return carriedSentinels(node).some((s) => sentinelMatches(s, target));
  });
}

/**
 * Go's `errors.As`: the first error on the same walk as {@link isError} that is an instance of
 * `ErrorClass` (by brand, so a second copy of the class counts), else `undefined`.
 */
export function findError<T extends Error>(err: unknown, ErrorClass: BrandedErrorClass<T>): T | undefined {
  let found: T | undefined;
  walkError(err, (node) => {
    if (!hasBrand(node, ErrorClass.brand)) return false;
    found = node as T;
    return true;
  });
  return found;
}
