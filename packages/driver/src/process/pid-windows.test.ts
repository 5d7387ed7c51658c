import { describe, expect, it } from "vitest";
import { followPidWindows, inWindow, type PidWindow } from "./pid-windows.js";

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
