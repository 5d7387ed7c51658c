import { describe, expect, it } from "vitest";
import { sweepUntilGone } from "./sweep.js";

describe("sweepUntilGone", () => {
  it("one empty listing between two finds is not the end: each pid a listing finds is signalled", async () => {
    // A job changing its pid: found as 10, missed once (between pids), found as 11, then gone.
    const listings = [[10], [], [11], [], [], [], [], []];
    const signalled: number[] = [];
    const quiet = await sweepUntilGone(
      () => listings.shift() ?? [],
      (pid) => signalled.push(pid),
      Date.now() + 10_000,
    );
    expect(quiet).toBe(true);
    expect(signalled).toEqual([10, 11]);
    expect(listings).toHaveLength(2); // stopped after three empty listings in a row
  });

  it("gives up at its deadline while something is still found", async () => {
    let listed = 0;
    const quiet = await sweepUntilGone(
      () => [++listed],
      () => undefined,
      Date.now(),
    );
    expect(quiet).toBe(false);
    expect(listed).toBe(1);
  });
});
