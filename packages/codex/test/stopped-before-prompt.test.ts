import { afterEach, describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { processGone } from "@adaptor/driver/kit";
import { whenPromptSays } from "@adaptor/testkit";
import { codexHarness, type CodexHarness } from "./support.js";

// A run stopped while its codex process was being started (the host's cancel, a deadline) reaches
// the turn with its signal already aborted: no abort event follows, yet the run rejects with the
// stop's reason, no model request goes out and the process is gone (real binary, both transports).

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a codex run stopped before its prompt (real binary)", { timeout: 60_000 }, () => {
  for (const transport of ["app-server", "exec"] as const) {
    it(`${transport}: rejects with the stop's reason, no model request goes out and the process is gone`, async () => {
      h = await codexHarness({
        rules: [{ when: whenPromptSays("echo it"), reply: { text: "done" } }],
        config: transport === "exec" ? { transport } : {},
      });
      const run = await runDriver(
        h.driver,
        { prompt: "echo it" },
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
