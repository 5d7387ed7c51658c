/**
 * Whether a tool call's reported input says something: true for any value but `undefined`,
 * `null` and an object without own enumerable keys (`{}`); an array, even empty, a string or a
 * number is input. Agents report a call before its input (`{}` or nothing) and the input later,
 * or never (Gemini CLI reports an MCP call's input as `{}`).
 */
export function knownInput(input: unknown): boolean {
  if (input === undefined || input === null) return false;
  return typeof input !== "object" || Array.isArray(input) || Object.keys(input).length > 0;
}
