import { redactValues } from "@adaptor/errors/internal";

/**
 * `value` with each of `secrets` replaced by `[redacted]` in every string it holds (object keys
 * kept): what a worker writes to the shared database, so that the values of its own credential
 * variables never leave its host. Plain objects and arrays are copied; other values returned as-is.
 */
export function scrubSecrets<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  return scrub(value, secrets) as T;
}

function scrub(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") return redactValues(value, secrets);
  if (Array.isArray(value)) return value.map((item) => scrub(item, secrets));
  if (typeof value === "object" && value !== null) {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return value;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrub(item, secrets)]));
  }
  return value;
}
