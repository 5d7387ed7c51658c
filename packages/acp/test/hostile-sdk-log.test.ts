import { afterEach, describe, expect, it, vi } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { Agent } from "adaptor";
import { hostileAcp, text } from "./hostile-agent/hostile.js";
import { collect } from "./support.js";

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

describe("the host's own console calls made from an ACP connection's callbacks stay the host's (hostile agent)", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("console calls from onApproval, a hook and a timer started in them reach the console, after close too; the SDK's own line is still a notice", async () => {
    const consoleCalls = (["error", "warn", "log", "info", "debug"] as const).map((level) => vi.spyOn(console, level));
    const lines = (): string[] => consoleCalls.flatMap((spy) => spy.mock.calls.map((call) => call.map(String).join(" ")));
    const call = { toolCallId: "c1", title: "touch x", kind: "execute" };
    const agent = new Agent(
      hostileAcp({
        "session/prompt": [
          [
            { update: { sessionUpdate: "tool_call", ...call, status: "pending", rawInput: { command: "touch x" } } },
            { permission: call },
            { update: { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed", rawOutput: "done" } },
            { bogusReplies: 1 },
            text("ok"),
            { respond: { stopReason: "end_turn" } },
          ],
        ],
      }),
    );
    let closed!: () => void;
    const afterClose = new Promise<void>((resolve) => (closed = resolve));
    let lateLogged!: () => void;
    const lateLine = new Promise<void>((resolve) => (lateLogged = resolve));
    let timerLogged!: () => void;
    const timerLine = new Promise<void>((resolve) => (timerLogged = resolve));
    try {
      const stream = agent.stream("go", {
        onApproval: (request) => {
          console.log("host: onApproval secret=ghp_abc");
          setTimeout(() => {
            console.warn("host: timer from onApproval");
            timerLogged();
          }, 0);
          // A background logger the handler leaves behind, still logging after the agent is closed.
          void afterClose.then(() =>
            setTimeout(() => {
              console.error("host: timer after close");
              lateLogged();
            }, 0),
          );
          request.approve();
        },
        hooks: {
          afterToolCall: () => {
            console.info("host: afterToolCall db=postgres://admin:hunter2@db/prod");
          },
        },
      });
      const events = await collect(stream);
      await stream.result();
      await timerLine;
      const notices = events.flatMap((e) => (e.type === "notice" ? [e.message ?? ""] : []));
      expect(notices.filter((m) => m.startsWith("ACP SDK: "))).toEqual(["ACP SDK: Got response to unknown request 1000000"]);
      // Per level, so sorted: the order between a timer and a hook is not the point.
      expect(lines().sort()).toEqual([
        "host: afterToolCall db=postgres://admin:hunter2@db/prod",
        "host: onApproval secret=ghp_abc",
        "host: timer from onApproval",
      ]);
    } finally {
      await agent.close();
    }
    closed();
    await lateLine;
    expect(lines()).toContain("host: timer after close");
  });
});
