import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DriverError, ErrCode, findError } from "@adaptor/errors";
import type { ApprovalDecision } from "../../spi/approval.js";
import type { TurnControl } from "../../spi/turn-control.js";
import type { HookAnswer } from "../../spi/hooks.js";
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

  it("does not count time the reader holds the output back (a slow host): the CLI cannot write then; the clock restarts once reading resumes", () => {
    const source = { outputBytes: 0, outputHeld: false };
    using watchdog = new StallWatchdog(source, { timeoutMs: 2_000, device: "agent" });
    vi.advanceTimersByTime(1_500);
    source.outputHeld = true;
    vi.advanceTimersByTime(60_000);
    expect(watchdog.signal.aborted).toBe(false);
    source.outputHeld = false;
    vi.advanceTimersByTime(1_499);
    expect(watchdog.signal.aborted).toBe(false);
    vi.advanceTimersByTime(2_000);
    expect(watchdog.signal.aborted).toBe(true);
  });

  it("does not count time the host reports busy through the sink (a host tool running), and restarts the clock once it is not", () => {
    const source = counter();
    let busy = false;
    using watchdog = new StallWatchdog(source, { timeoutMs: 2_000, device: "agent" });
    const sink = watchdog.sink({
      emit: () => undefined,
      requestApproval: () => Promise.resolve({ outcome: "approve" }),
      hostBusy: () => busy,
    });
    expect(sink.hostBusy?.()).toBe(false);
    vi.advanceTimersByTime(1_500);
    busy = true;
    expect(sink.hostBusy?.()).toBe(true);
    vi.advanceTimersByTime(60_000);
    expect(watchdog.signal.aborted).toBe(false);
    busy = false;
    vi.advanceTimersByTime(1_499);
    expect(watchdog.signal.aborted).toBe(false);
    vi.advanceTimersByTime(2_000);
    expect(watchdog.signal.aborted).toBe(true);
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

  it("passes the host's hooks through its sink, not counting the time a hook takes to answer", async () => {
    let answer!: (value: HookAnswer) => void;
    using watchdog = new StallWatchdog(counter(), { timeoutMs: 2_000, device: "agent" });
    const sink = watchdog.sink({
      emit: () => undefined,
      requestApproval: () => Promise.resolve({ outcome: "approve" }),
      hook: () => new Promise((resolve) => (answer = resolve)),
    });
    const answered = sink.hook?.({ point: "beforeToolCall", toolName: "Bash", input: {} });
    vi.advanceTimersByTime(60_000);
    expect(watchdog.signal.aborted).toBe(false);
    answer({ deny: "no" });
    expect(await answered).toEqual({ deny: "no" });
    vi.advanceTimersByTime(2_500);
    expect(watchdog.signal.aborted).toBe(true);
  });

  it("passes the host's turn controls through its sink (attachControl reaches the run's sink)", () => {
    using watchdog = new StallWatchdog(counter(), { timeoutMs: 2_000, device: "agent" });
    const attached: TurnControl[] = [];
    const detach = (): void => undefined;
    const sink = watchdog.sink({
      emit: () => undefined,
      requestApproval: () => Promise.resolve({ outcome: "approve" }),
      attachControl: (control) => {
        attached.push(control);
        return detach;
      },
    });
    const control: TurnControl = { interrupt: () => Promise.resolve() };
    expect(sink.attachControl?.(control)).toBe(detach);
    expect(attached).toEqual([control]);
  });

  it("passes the host's pace through its sink (ready reaches the run's sink)", () => {
    using watchdog = new StallWatchdog(counter(), { timeoutMs: 2_000, device: "agent" });
    const wait = Promise.resolve();
    const base = { emit: () => undefined, requestApproval: () => Promise.resolve({ outcome: "approve" as const }) };
    expect(watchdog.sink({ ...base, ready: () => wait }).ready?.()).toBe(wait);
    expect(watchdog.sink(base).ready).toBeUndefined();
  });

  it("passes the run's deny rules through its sink (ruleDenies reaches the run's sink)", () => {
    using watchdog = new StallWatchdog(counter(), { timeoutMs: 2_000, device: "agent" });
    const base = { emit: () => undefined, requestApproval: () => Promise.resolve({ outcome: "approve" as const }) };
    const asked: unknown[] = [];
    const sink = watchdog.sink({ ...base, ruleDenies: (toolName, input) => (asked.push([toolName, input]), toolName === "Read") });
    expect([sink.ruleDenies?.("Read", { file_path: "/k" }), sink.ruleDenies?.("Grep", {})]).toEqual([true, false]);
    expect(asked).toEqual([
      ["Read", { file_path: "/k" }],
      ["Grep", {}],
    ]);
    expect(watchdog.sink(base).ruleDenies).toBeUndefined();
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
