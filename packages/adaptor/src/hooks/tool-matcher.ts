// A tool hook's `matcher`, as Claude Code reads one: which tool calls the hook is for.

/** A matcher that is a list of names: letters, digits, `_`, `-` and spaces, joined by `|` or `,`. */
const NAMES = /^[a-zA-Z0-9_|, -]+$/;

/** The names a list matcher holds, or undefined for a matcher read as a regular expression. */
export function namesOf(matcher: string): string[] | undefined {
  if (!NAMES.test(matcher)) return undefined;
  return matcher
    .split(/[|,]/)
    .map((name) => name.trim())
    .filter(Boolean);
}

/**
 * Why `matcher` names no tools, or undefined when it is valid: a matcher that is not a list of
 * names must be a valid regular expression.
 */
export function matcherProblem(matcher: string): string | undefined {
  if (matcher === "" || matcher === "*" || namesOf(matcher) !== undefined) return undefined;
  try {
    new RegExp(matcher);
    return undefined;
  } catch (error) {
    return `is not a list of tool names and not a valid regular expression (${(error as Error).message})`;
  }
}

/**
 * True when the call of the tool `toolName` is one `matcher` is for: every call for an empty
 * matcher or `*`; for names joined by `|` or `,` (e.g. `"Bash|Write"`), a call of one of them
 * exactly; otherwise, a call whose name the regular expression finds a match in (unanchored:
 * `"^mcp__github__"` for every tool of one MCP server).
 */
export function matchesTool(matcher: string, toolName: string): boolean {
  if (matcher === "" || matcher === "*") return true;
  const names = namesOf(matcher);
  if (names !== undefined) return names.includes(toolName);
  try {
    return new RegExp(matcher).test(toolName);
  } catch {
    return false;
  }
}
