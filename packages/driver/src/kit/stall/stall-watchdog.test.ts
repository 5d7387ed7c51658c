import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import type { ApprovalDecision } from "../../spi/approval.js";
import { StallWatchdog } from "./stall-watchdog.js";

const counter = (): { outputBytes: number } => ({ outputBytes: 0 });

describe("StallWatchdog", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("aborts with a TIMEOUT DriverError (op stall) after timeoutMs without output, never before", () => {
    const source = counter();
    using watchdog = new StallWatchdog(source, { timeoutMs: 2_000, device: "agent" });
    vi.advanceTimersByTime(1_500);
    source.outputBytes += 10;
    vi.advanceTimersByTime(1_999);
    expect(watchdog.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1_000);
    expect(watchdog.signal.aborted).toBe(true);
    const error = findError(watchdog.signal.reason, DriverError);
    expect([error?.code, error?.op, error?.device]).toEqual([ErrCode.Timeout, "stall", "agent"]);
  });

  it("does not count time spent waiting on an approval, and restarts the clock once it is answered", async () => {
    const source = counter();
    let answer!: (decision: ApprovalDecision) => void;
    using watchdog = new StallWatchdog(source, { timeoutMs: 2_000, device: "agent" });
    const sink = watchdog.sink({ emit: () => undefined, requestApproval: () => new Promise((resolve) => (answer = resolve)) });
    const decided = sink.requestApproval({ kind: "permission", title: "t", toolName: "Bash", toolCallId: "c", input: {} });
    vi.advanceTimersByTime(60_000);
    expect(watchdog.signal.aborted).toBe(false);
    answer({ outcome: "approve" });
    expect(await decided).toEqual({ outcome: "approve" });
    vi.advanceTimersByTime(1_500);
    expect(watchdog.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1_000);
    expect(watchdog.signal.aborted).toBe(true);
  });

  it("timeoutMs 0 never aborts; close() stops it", () => {
    using off = new StallWatchdog(counter(), { timeoutMs: 0, device: "agent" });
    const closed = new StallWatchdog(counter(), { timeoutMs: 1_000, device: "agent" });
    closed.close();
    vi.advanceTimersByTime(10_000);
    expect([off.signal.aborted, closed.signal.aborted]).toEqual([false, false]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
