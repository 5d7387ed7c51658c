import { describe, expect, it } from "vitest";
import { Agent, FeatureUnsupportedError, type ApprovalRequest } from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

// `request.deny(reason, { interrupt: true })` where the driver cannot interrupt a turn: refused at
// answer time with a typed error, the request left pending for another answer. (The interrupt
// itself is proved on the real binaries: test/claude and test/codex deny-interrupt.)

/** A driver that asks once and reports the decision it got as its text; it declares no interrupt. */
function askingDriver() {
  return scriptedDriver(async (_r, sink) => {
    const decision = await sink.requestApproval({ kind: "permission", title: "Bash: rm -rf build", toolName: "Bash" });
    return { text: JSON.stringify(decision) };
  });
}

describe("deny with interrupt", () => {
  it("a driver that cannot interrupt a turn refuses it with FeatureUnsupportedError; the request stays pending", async () => {
    const refusals: unknown[] = [];
    const statuses: string[] = [];
    const result = await new Agent(askingDriver()).run("p", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request: ApprovalRequest) => {
        try {
          request.deny("stop", { interrupt: true });
        } catch (error) {
          refusals.push(error);
        }
        statuses.push(request.status);
        request.deny("stop");
      },
    });
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toBeInstanceOf(FeatureUnsupportedError);
    expect(refusals[0]).toMatchObject({ feature: "interrupt" });
    expect(statuses).toEqual(["pending"]);
    expect(result.status).toBe("completed");
    expect(JSON.parse(result.text)).toEqual({ outcome: "deny", reason: "stop" });
  });

  it("interrupt must be a boolean", async () => {
    const refusals: unknown[] = [];
    await new Agent(askingDriver()).run("p", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request: ApprovalRequest) => {
        try {
          request.deny("stop", { interrupt: "yes" as unknown as boolean });
        } catch (error) {
          refusals.push(error);
        }
        request.deny("stop");
      },
    });
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ name: "InvalidOptionError", field: "interrupt" });
  });
});
