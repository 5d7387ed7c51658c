/**
 * Freezes `value` and every object and array reachable from it, in place, and returns it: for
 * descriptors and config snapshots that must not change after construction. Primitives are
 * returned as they are; `value` must be acyclic. Freeze only what you own (copy first).
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
