import { describe, expect, it } from "vitest";
import type { Driver } from "../spi/driver.js";
import { describeDriverConformance } from "./describe-driver-conformance.js";
import { REFERENCE_DESCRIPTOR, REFERENCE_SCRIPTS, ReferenceDriver } from "./reference-driver.js";
import { runDriver } from "./run-driver.js";

describeDriverConformance("reference driver", {
  makeDriver: () => ({ driver: new ReferenceDriver() }),
  scripted: REFERENCE_SCRIPTS,
  makeForeignDriver: () => new ReferenceDriver({ latencyMs: -1 }),
  cancelAfterMs: 100,
  timeoutMs: 10_000,
});

describe("conformance kit harness", () => {
  it("runDriver records events after run() settled as late events (the 3.1 violation)", async () => {
    const leaky: Driver = {
      descriptor: REFERENCE_DESCRIPTOR,
      validateConfig: () => undefined,
      async run(_request, sink) {
        setTimeout(() => sink.emit({ type: "text-delta", text: "too late" }), 10);
        return { text: "", transcript: [], raw: { stdout: "", stderr: "" } };
      },
    };
    const result = await runDriver(leaky, { prompt: "x" });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(result.recording.events).toEqual([]);
    expect(result.recording.lateEvents).toEqual([{ type: "text-delta", text: "too late" }]);
  });

  it("a throwing approval handler is answered with a deny, as the SDK guarantees", async () => {
    const result = await runDriver(
      new ReferenceDriver(),
      { prompt: "TOOL rm -rf /" },
      {
        onApproval: () => {
          throw new Error("host handler broke");
        },
      },
    );
    expect(result.recording.decisions).toEqual([{ outcome: "deny", reason: "approval handler failed" }]);
    expect(result.response?.text).toContain("denied");
  });

  it("the reference driver resumes across instances sharing a store, and a fork gets a new id", async () => {
    const sessions = new Map<string, string[]>();
    const first = await runDriver(new ReferenceDriver({ sessions }), { prompt: "one" });
    const resumeId = first.response?.checkpoint?.resumeId as string;
    const second = await runDriver(new ReferenceDriver({ sessions }), { prompt: "two", session: { resumeId } });
    expect(second.response?.text).toBe("Reference reply #2: two");
    const forked = await runDriver(new ReferenceDriver({ sessions }), { prompt: "three", session: { resumeId, fork: true } });
    expect(forked.response?.text).toBe("Reference reply #3: three");
    expect(forked.response?.checkpoint?.resumeId).not.toBe(resumeId);
  });
});
