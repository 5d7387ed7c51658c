import { distance } from "fastest-levenshtein";

/**
 * The known name closest to `unknown` (case-insensitive edit distance), when close enough to be a
 * likely typo: at most 2 edits, or a third of the longer name. `undefined` otherwise.
 */
export function closestOption(unknown: string, known: readonly string[]): string | undefined {
  const typed = unknown.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = distance(typed, name.toLowerCase());
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  if (best === undefined) return undefined;
  return bestDistance <= Math.max(2, Math.floor(Math.max(typed.length, best.length) / 3)) ? best : undefined;
}
