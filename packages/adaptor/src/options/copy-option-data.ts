/** The options whose values are data the caller may keep and change: copied at the call. */
const DATA_OPTIONS = ["env", "metadata", "policy", "skills", "mcpServers", "tools"] as const;

/**
 * Returns `options` with the data it holds copied, so changing the caller's objects afterwards
 * reaches no later run: `env`, `metadata`, `policy`, and the `skills`, `mcpServers` and `tools`
 * arrays. Plain objects and arrays are copied all the way down (and frozen); anything else (a
 * `Tool`, a `Date`, a class instance, a function) is kept as the same object. A cycle keeps its
 * shape.
 */
export function copyOptionData<T extends object>(options: T): T {
  const record = options as Record<string, unknown>;
  if (!DATA_OPTIONS.some((key) => record[key] !== undefined)) return options;
  const copy: Record<string, unknown> = { ...record };
  const seen = new Map<object, unknown>();
  for (const key of DATA_OPTIONS) if (record[key] !== undefined) copy[key] = copyData(record[key], seen);
  return Object.freeze(copy) as T;
}

function copyData(value: unknown, seen: Map<object, unknown>): unknown {
  if (typeof value !== "object" || value === null) return value;
  const done = seen.get(value);
  if (done !== undefined) return done;
  if (Array.isArray(value)) {
    const array: unknown[] = [];
    seen.set(value, array);
    for (const item of value) array.push(copyData(item, seen));
    return Object.freeze(array);
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const object: Record<string, unknown> = proto === null ? Object.create(null) : {};
  seen.set(value, object);
  // Defined, not assigned: a "__proto__" key (as JSON.parse makes one) stays an own key the option
  // checks see and refuse, instead of setting the copy's prototype and lending it inherited fields.
  for (const key of Object.keys(value)) {
    Object.defineProperty(object, key, {
      value: copyData((value as Record<string, unknown>)[key], seen),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return Object.freeze(object);
}
