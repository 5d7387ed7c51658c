import { afterEach, describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { processGone } from "@adaptor/driver/kit";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { driverHarness, type DriverHarness } from "../../packages/claude/test/support.js";

// A run stopped while its process was being started (the host's cancel, a deadline) reaches the
// turn with its signal already aborted: the turn writes no prompt and the process ends, even when
// the every-tool PreToolUse hook holds each tool call the CLI makes until the driver answers it (a
// tool-call budget, askForEveryTool) and answers nothing once the run was stopped (real binary).

let h: DriverHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const RULES = [
  { when: whenUserSays("echo it"), reply: { toolUse: { name: "Bash", input: { command: "echo one" } } } },
  { when: whenToolResult("Bash"), reply: { text: "done" } },
];

describe("a claude run stopped before its prompt (real binary)", { timeout: 60_000 }, () => {
  for (const [name, config, budget] of [
    ["a tool-call budget", {}, { maxToolCalls: 3 }],
    ["askForEveryTool", { askForEveryTool: true }, undefined],
  ] as const) {
    it(`with ${name}: rejects with the stop's reason, no model request goes out and the process is gone`, async () => {
      h = await driverHarness(RULES, config);
      const run = await runDriver(
        h.driver,
        { prompt: "echo it", policy: { approvals: { permission: "auto_approve" } }, ...(budget ? { budget } : {}) },
        // Stopped as the process starts: the driver has not run the turn yet.
        { cancelWhen: (recording) => recording.pids().length > 0 },
      );
      expect(run.error).toBe(run.abortReason);
      expect(h.server.requests).toHaveLength(0);
      const [pid] = run.recording.pids();
      expect(pid !== undefined && processGone(pid)).toBe(true);
    });
  }
});
