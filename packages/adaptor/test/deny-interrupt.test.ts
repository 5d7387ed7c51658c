import { describe, expect, it } from "vitest";
import type { Driver, DriverResponse, TurnControl } from "@adaptor/driver";
import { Agent, FeatureUnsupportedError, type ApprovalRequest } from "../src/index.js";
import { scriptedDriver, untilAborted } from "./scripted-driver.js";

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

  /** A driver that declares interrupt; its turn asks twice at once, then ends at the interrupt. */
  function twoAsks(): Driver {
    const base = scriptedDriver(async () => ({}));
    return {
      ...base,
      descriptor: { ...base.descriptor, capabilities: { ...base.descriptor.capabilities, turnControl: { interrupt: true } } },
      async run(_request, sink, signal): Promise<DriverResponse> {
        let interrupted!: () => void;
        const stop = new Promise<void>((resolve) => (interrupted = resolve));
        const control: TurnControl = { interrupt: () => (interrupted(), Promise.resolve()) };
        const detach = sink.attachControl?.(control);
        try {
          await Promise.all([1, 2].map((n) => sink.requestApproval({ kind: "permission", title: `Bash: step ${n}`, toolName: "Bash" })));
          await Promise.race([stop, untilAborted(signal)]);
        } finally {
          detach?.();
        }
        return { text: "partial", transcript: [], raw: { stdout: "", stderr: "" }, interrupted: true };
      },
    };
  }

  // Another request pending when one is denied with interrupt is expired by the interrupt: the turn
  // is ending, so onReject applies to neither (abort failed the run "turn interrupted"; retry asked again).
  it.each(["abort", "retry"] as const)("another pending request is expired by the interrupt without onReject %s", async (onReject) => {
    const seen: ApprovalRequest[] = [];
    const result = await new Agent(twoAsks()).run("p", {
      policy: { approvals: { permission: "ask", onReject } },
      onApproval: (request: ApprovalRequest) => {
        seen.push(request);
        if (seen.length === 2) seen[0]!.deny("stop", { interrupt: true });
        return new Promise<void>(() => undefined); // the second is left to the interrupt
      },
    });
    expect(result.status).toBe("interrupted");
    expect(seen.map((request) => [request.title, request.status])).toEqual([
      ["Bash: step 1", "denied"],
      ["Bash: step 2", "expired"],
    ]);
  });

  it("stream.interrupt() with a request pending: onReject abort does not fail the run", async () => {
    const stream = new Agent(twoAsks()).stream("p", { policy: { approvals: { permission: "ask", onReject: "abort" } } });
    let asked = 0;
    for await (const event of stream) {
      if (event.type === "approval-request" && ++asked === 2) await stream.interrupt();
    }
    await expect(stream.result()).resolves.toMatchObject({ status: "interrupted" });
  });
});
