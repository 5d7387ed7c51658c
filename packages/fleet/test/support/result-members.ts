import { Result } from "adaptor";

/**
 * Every member a host reads on a `Result`, by name, sorted: the fields a Result is made with, its
 * getters and its methods. Read from the class, so a member added to `Result` shows here.
 */
export function resultMembers(): string[] {
  const sample = new Result({ runId: "r", text: "", durationMs: 0, raw: { stdout: "", stderr: "" }, transcript: [] });
  const names = new Set([...Object.keys(sample), ...Object.getOwnPropertyNames(Result.prototype)]);
  names.delete("constructor");
  return [...names].sort();
}

/**
 * What a host reads of `result`, member by member ({@link resultMembers}): fields as they are,
 * getters read, methods called (`raw()`, `transcript()`, `decode()`), a method that throws as its
 * error's name and message.
 */
export function readResult(result: Result): Record<string, unknown> {
  const read: Record<string, unknown> = {};
  for (const name of resultMembers()) {
    const value = (result as unknown as Record<string, unknown>)[name];
    if (typeof value !== "function") {
      read[name] = value;
      continue;
    }
    try {
      read[`${name}()`] = { returns: (value as () => unknown).call(result) };
    } catch (error) {
      read[`${name}()`] = { throws: `${(error as Error).name}: ${(error as Error).message}` };
    }
  }
  return read;
}
