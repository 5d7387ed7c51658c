/** Median of `values` (the upper middle one for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** `min–max` of `values` formatted with `format`. */
export function range(values: readonly number[], format: (value: number) => string): string {
  return `${format(Math.min(...values))}–${format(Math.max(...values))}`;
}
