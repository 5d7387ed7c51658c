import { describe, expect, it } from "vitest";
import { followPidWindows, inWindow, SharedWindowReads, type PidWindow } from "./pid-windows.js";

/**
 * A fake kernel with one job that forks (its parent exiting) while each of its first `hops`
 * windows is read, as a job forking faster than a listing reads `/proc` does on a busy host.
 */
function hoppingKernel(lastPid: number, hops: number) {
  const kernel = { last: lastPid, job: lastPid, pids: [lastPid], windows: [] as PidWindow[] };
  const examine = (window: PidWindow): void => {
    kernel.windows.push(window);
    if (kernel.windows.length <= hops) kernel.pids.push((kernel.job = ++kernel.last));
  };
  return { kernel, examine };
}

describe("followPidWindows", () => {
  it("a job that forks during each pass is read under its newest pid; it stops at the first pass in which nothing started", () => {
    const { kernel, examine } = hoppingKernel(100, 5);
    // The listing began when the last pid handed out was 99: the job (100) started while it ran.
    expect(followPidWindows(99, () => kernel.last, examine)).toBe(true);
    expect(kernel.windows).toEqual([
      { after: 99, last: 100 },
      { after: 100, last: 101 },
      { after: 101, last: 102 },
      { after: 102, last: 103 },
      { after: 103, last: 104 },
      { after: 104, last: 105 },
    ]);
    expect(kernel.job).toBe(105);
    // Every pid the job had is in a window that was read.
    expect(kernel.pids.every((pid) => kernel.windows.some((window) => inWindow(pid, window)))).toBe(true);
  });

  it("nothing started since the listing began: no window is read", () => {
    const { kernel, examine } = hoppingKernel(100, 0);
    expect(followPidWindows(100, () => kernel.last, examine)).toBe(true);
    expect(kernel.windows).toEqual([]);
  });

  it("gives up after its passes on a host that starts a process during every pass", () => {
    const { kernel, examine } = hoppingKernel(100, Infinity);
    expect(followPidWindows(99, () => kernel.last, examine, 8)).toBe(false);
    expect(kernel.windows).toHaveLength(8);
  });

  it("cannot tell without the last pid handed out", () => {
    const { kernel, examine } = hoppingKernel(100, 0);
    expect(followPidWindows(undefined, () => kernel.last, examine)).toBe(false);
    expect(followPidWindows(99, () => undefined, examine)).toBe(false);
    expect(kernel.windows).toEqual([]);
  });
});

describe("SharedWindowReads", () => {
  /** Live processes at pids 10..40 but the odd ones above 30; every pid read is counted. */
  function counted() {
    const reads = new Map<number, number>();
    const read = ({ after, last }: PidWindow) => {
      const found: { pid: number }[] = [];
      const take = (pid: number) => {
        reads.set(pid, (reads.get(pid) ?? 0) + 1);
        if (pid >= 10 && pid <= 40 && !(pid > 30 && pid % 2 === 1)) found.push({ pid });
      };
      if (after < last) for (let pid = after + 1; pid <= last; pid++) take(pid);
      else {
        for (let pid = after + 1; pid <= 50; pid++) take(pid);
        for (let pid = 1; pid <= last; pid++) take(pid);
      }
      return found;
    };
    return { reads, shared: new SharedWindowReads(read) };
  }
  const pids = (found: { pid: number }[]) => found.map((each) => each.pid);

  it("overlapping windows, asked one after the other, read each pid once and each get what started in it, by ascending pid", () => {
    const { reads, shared } = counted();
    expect(pids(shared.in({ after: 20, last: 35 }))).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 32, 34]);
    // Starts earlier, ends later: only the new pids on both sides are read.
    expect(pids(shared.in({ after: 15, last: 38 }))).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 32, 34, 36, 38]);
    expect(pids(shared.in({ after: 35, last: 36 }))).toEqual([36]);
    expect(pids(shared.in({ after: 28, last: 31 }))).toEqual([29, 30]);
    expect([...reads.values()].every((count) => count === 1)).toBe(true);
    expect([...reads.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 23 }, (_, i) => 16 + i));
  });

  it("a window apart from what was read, or one that wraps past the highest pid, is read as asked", () => {
    const { reads, shared } = counted();
    shared.in({ after: 20, last: 25 });
    expect(pids(shared.in({ after: 30, last: 34 }))).toEqual([32, 34]);
    expect(pids(shared.in({ after: 48, last: 12 }))).toEqual([10, 11, 12]);
    // Neither was remembered: asked again, read again; the first window still once.
    shared.in({ after: 30, last: 34 });
    expect(reads.get(32)).toBe(2);
    expect(reads.get(22)).toBe(1);
    // Nothing between 25 and 30 was read to join them.
    expect(reads.has(27)).toBe(false);
  });
});
