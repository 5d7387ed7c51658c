import { afterEach, describe, expect, it, vi } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { hostileAcp, text } from "./hostile-agent/hostile.js";

describe("the ACP SDK's logging goes through the driver, bounded (hostile agent)", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("100,000 replies to requests never sent: nothing on the host's console, 20 notices and a count; the host's own lines pass", async () => {
    // Spied before the first connection exists, so what the driver routes never reaches it.
    const consoleCalls = (["error", "warn", "log", "info", "debug"] as const).map((level) => vi.spyOn(console, level));
    const driver = hostileAcp({
      "session/prompt": [[{ bogusReplies: 100_000 }, text("still here"), { respond: { stopReason: "end_turn" } }]],
    });
    try {
      const run = await runDriver(driver, { prompt: "hi" });
      expect(run.error).toBeUndefined();
      expect(run.response?.text).toBe("still here");
      expect(consoleCalls.reduce((sum, spy) => sum + spy.mock.calls.length, 0)).toBe(0);
      const sdk = run.recording.ofType("notice").filter((n) => (n.message ?? "").startsWith("ACP SDK: "));
      expect(sdk).toHaveLength(21);
      expect(sdk[0]?.message).toBe("ACP SDK: Got response to unknown request 1000000");
      expect(sdk.at(-1)?.data).toEqual({ dropped: 99_980 });
      // Outside an ACP connection the host's console gets its own lines as before.
      console.error("host line");
      expect(consoleCalls[0]?.mock.calls).toEqual([["host line"]]);
    } finally {
      await driver.close();
    }
  });
});
