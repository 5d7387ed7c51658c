/** A short description of a value for an error message: `number 123`, `string "abc"`, `null`, `an array`. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return value.length > 40 ? `string ${JSON.stringify(value.slice(0, 40))}...` : `string ${JSON.stringify(value)}`;
    case "number":
    case "bigint":
    case "boolean":
      return `${typeof value} ${String(value)}`;
    case "function":
      return "a function";
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}
