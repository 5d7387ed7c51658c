import { describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { Agent } from "adaptor";
import { hostileAcp, text } from "./hostile-agent/hostile.js";

const LINE = "warning: something\n";

describe("result.raw().stderr holds what the agent wrote to stderr before it ended the turn (hostile agent)", () => {
  const scenario = { "session/prompt": [[{ stderr: LINE }, text("ok"), { respond: { stopReason: "end_turn" } }]] };

  it("a process ended after its turn: every run's raw().stderr and stderrBytes count the line", async () => {
    const agent = new Agent(hostileAcp(scenario));
    try {
      for (let i = 0; i < 12; i++) {
        const result = await agent.run("go");
        expect(result.text).toBe("ok");
        const raw = result.raw();
        expect({ run: i, stderr: raw.stderr, stderrBytes: raw.stderrBytes }).toEqual({ run: i, stderr: LINE, stderrBytes: LINE.length });
      }
    } finally {
      await agent.close();
    }
  });

  it("a process kept for the next turn: each turn's raw().stderr holds its own line, and the turns share one process", async () => {
    const driver = hostileAcp(scenario);
    try {
      let resumeId: string | undefined;
      const pids = new Set<number>();
      for (let i = 0; i < 12; i++) {
        const run = await runDriver(driver, { prompt: "go", reuseProcess: true, ...(resumeId ? { session: { resumeId } } : {}) });
        expect(run.error).toBeUndefined();
        expect(run.response?.text).toBe("ok");
        resumeId = run.response?.checkpoint?.resumeId;
        for (const pid of run.recording.pids()) pids.add(pid);
        const raw = run.response!.raw;
        expect({ run: i, stderr: raw.stderr, stderrBytes: raw.stderrBytes }).toEqual({ run: i, stderr: LINE, stderrBytes: LINE.length });
      }
      expect(pids.size).toBe(1);
    } finally {
      await driver.close();
    }
  });
});
