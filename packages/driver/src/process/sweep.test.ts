import { describe, expect, it } from "vitest";
import { endSweeping, sweepUntilGone } from "./sweep.js";

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

describe("endSweeping", () => {
  it("what outlasts every SIGKILL round is told to gaveUp; nothing is told when the rounds end it", async () => {
    const sent: string[] = [];
    const left: number[][] = [];
    const signal = (pid: number, sig: NodeJS.Signals): boolean => (sent.push(`${sig} ${pid}`), true);
    expect(
      await endSweeping(
        () => [7],
        0,
        signal,
        (pids) => left.push(pids),
      ),
    ).toEqual([7]);
    expect(left).toEqual([[7]]);
    expect(sent).toContain("SIGKILL 7");
    let listings = 0;
    expect(
      await endSweeping(
        () => (++listings > 2 ? [] : [8]),
        0,
        signal,
        (pids) => left.push(pids),
      ),
    ).toEqual([8]);
    expect(left).toEqual([[7]]);
  });
});
