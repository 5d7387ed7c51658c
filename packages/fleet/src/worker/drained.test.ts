import { describe, expect, it } from "vitest";
import { RunError } from "adaptor";
import { stoppedByDrain } from "./drained.js";

const ownFailure = (): RunError => new RunError({ reason: "agent_error", message: "the model refused", result: undefined as never });

describe("stoppedByDrain", () => {
  it("a run that failed with the drain's abort reason, itself or as a cause, was stopped by the drain", () => {
    const stopping = new AbortController();
    stopping.abort(new Error("fleet drain timed out"));
    expect(stoppedByDrain({ ok: false, error: stopping.signal.reason }, stopping.signal)).toBe(true);
    expect(stoppedByDrain({ ok: false, error: new Error("the turn ended", { cause: stopping.signal.reason }) }, stopping.signal)).toBe(
      true,
    );
  });

  it("a run that failed by itself is not drained although the drain's timeout fired after it ended", () => {
    const stopping = new AbortController();
    const error = ownFailure();
    stopping.abort(new Error("fleet drain timed out"));
    expect(stoppedByDrain({ ok: false, error }, stopping.signal)).toBe(false);
  });

  it("no drain, or a run that succeeded, is not drained", () => {
    const stopping = new AbortController();
    expect(stoppedByDrain({ ok: false, error: ownFailure() }, stopping.signal)).toBe(false);
    stopping.abort(new Error("fleet drain timed out"));
    expect(stoppedByDrain({ ok: true }, stopping.signal)).toBe(false);
  });
});
