import { describe, expect, it } from "vitest";
import type { PolicyEnforcement } from "@adaptor/driver";
import { Agent, RunError } from "../src/index.js";
import { scriptedDriver, untilAborted } from "./scripted-driver.js";

// A run the SDK itself stops (a handler that returns without deciding, an approval timeout) still
// lists each explicitly set policy field in `RunError.result.enforcement`.

const asked: PolicyEnforcement = {
  field: "approvals.permission",
  value: "ask",
  enforced: true,
  mechanisms: ["approval"],
  detail: "the CLI asks before every tool",
};

/** Asks once, then waits for the abort; with `report`, gives its enforcement report as it stops. */
function askingDriver(report?: PolicyEnforcement[]) {
  return scriptedDriver(async (_request, sink, signal) => {
    signal.addEventListener("abort", () => report && sink.partial?.({ enforcement: report }), { once: true });
    await sink.requestApproval({ kind: "permission", title: "Bash: rm -rf build", toolName: "Bash", toolCallId: "c1" });
    return untilAborted(signal);
  });
}

async function stoppedRun(driver: ReturnType<typeof askingDriver>): Promise<RunError> {
  const error = await new Agent(driver)
    .run("p", {
      policy: { approvals: { permission: "ask" }, activeExecutionTimeoutMs: 60_000 },
      // Returns without deciding: the SDK stops the run at once.
      onApproval: () => undefined,
    })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RunError);
  return error as RunError;
}

describe("RunError.result.enforcement of a run the SDK stopped", () => {
  it("a driver that reported nothing: each explicitly set field is listed not enforced", async () => {
    const error = await stoppedRun(askingDriver());
    expect(error.message).toMatch(/returned without deciding/);
    expect(error.result.enforcement).toEqual([
      {
        field: "approvals.permission",
        value: "ask",
        enforced: false,
        mechanisms: [],
        detail: "the SDK stopped the run before the driver reported enforcing it",
      },
      expect.objectContaining({ field: "activeExecutionTimeoutMs", value: "60000", enforced: true, mechanisms: ["sdk"] }),
    ]);
  });

  it("a driver that gave its report as it stopped (sink.partial): the report is kept", async () => {
    const error = await stoppedRun(askingDriver([asked]));
    expect(error.result.enforcement).toEqual([asked, expect.objectContaining({ field: "activeExecutionTimeoutMs" })]);
  });
});
