// Which kit clause catches which broken variant of the fixture driver.
import type { Variant } from "./mycli-driver.js";

/** Every clause number of the kit. */
export const CLAUSES = [
  ...["1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3", "3.1", "3.2", "3.3", "3.4", "3.5", "4.1", "4.2"],
  ...["5.1", "5.2", "5.3", "5.4", "5.5", "6.1", "6.2", "6.3", "6.4", "7.1", "8.1", "8.2", "8.3"],
];

/** The clauses each broken variant must fail (the good driver runs every clause and must fail none). */
export const BREAKS: Readonly<Record<Exclude<Variant, "good">, readonly string[]>> = {
  "auto-deny-runs": ["6.3"],
  "ask-runs": ["6.4"],
  "swallow-crash": ["8.3"],
  "fake-policy": ["1.2", "1.4"],
  "fake-enforcement": ["1.4"],
  "events-after-terminal": ["3.1"],
  "lose-usage": ["3.4"],
  "unasked-interrupt": ["3.5"],
  "sdk-events": ["3.1"],
};
