/**
 * The deepest nesting of objects and arrays the SDK carries in a value it did not make (a tool
 * call's input, an approval's input and details, a notice's data): 64 levels, the value itself
 * being level 1. Real tool inputs nest a few levels; a deeper value comes from a hostile or broken
 * agent or model, and one nested some thousands of levels cannot be encoded by `JSON.stringify`
 * (it throws `RangeError: Maximum call stack size exceeded`), which every stream, store and
 * span of the run relies on.
 */
export const JSON_DEPTH_MAX = 64;

/**
 * What stands in place of an object or array nested deeper than {@link JSON_DEPTH_MAX} levels in a
 * value that {@link boundDepth} cut: the string `"[nested deeper than 64 levels]"`.
 */
export const JSON_DEPTH_PLACEHOLDER = `[nested deeper than ${JSON_DEPTH_MAX} levels]`;

/**
 * Whether `value` nests objects or arrays more than `max` levels deep (`value` itself, when it is
 * one, is level 1). Looks no deeper than `max + 1` levels, so a value nested any depth is checked
 * without exhausting the stack; a cyclic value counts as too deep.
 * @param max the deepest nesting allowed, a positive integer; default {@link JSON_DEPTH_MAX}.
 */
export function nestsDeeperThan(value: unknown, max: number = JSON_DEPTH_MAX): boolean {
  return tooDeep(value, max);
}

function tooDeep(value: unknown, left: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (left === 0) return true;
  for (const child of Array.isArray(value) ? value : Object.values(value)) if (tooDeep(child, left - 1)) return true;
  return false;
}

/**
 * `value` with every object or array nested deeper than `max` levels replaced by
 * {@link JSON_DEPTH_PLACEHOLDER}: a value JSON can encode whatever the depth it came with. Only the
 * objects and arrays on the way to a cut are copied (plain copies of their own enumerable
 * properties); `value` itself is returned when it fits, and is never changed. An object that holds
 * itself is replaced by the placeholder where it repeats.
 * @param max the deepest nesting kept, a positive integer; default {@link JSON_DEPTH_MAX}.
 */
export function boundDepth<T>(value: T, max: number = JSON_DEPTH_MAX): T {
  return (tooDeep(value, max) ? cut(value, max) : value) as T;
}

function cut(value: unknown, left: number, path: Set<object> = new Set()): unknown {
  if (typeof value !== "object" || value === null) return value;
  // An object that holds itself (a cycle) is cut where it repeats: copied down to the depth, a
  // cycle that branches would be copied exponentially many times.
  if (left === 0 || path.has(value)) return JSON_DEPTH_PLACEHOLDER;
  if (!tooDeep(value, left)) return value;
  path.add(value);
  try {
    if (Array.isArray(value)) return value.map((child: unknown) => cut(child, left - 1, path));
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, cut(child, left - 1, path)]));
  } finally {
    path.delete(value);
  }
}
