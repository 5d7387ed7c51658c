/** True when `text` contains `pattern` (a substring) or matches it (a RegExp, its `lastIndex` reset first). */
export function textMatches(text: string, pattern: string | RegExp): boolean {
  if (typeof pattern === "string") return text.includes(pattern);
  pattern.lastIndex = 0;
  return pattern.test(text);
}
