import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { hostileAcp, text, type HostileStep } from "./hostile-agent/hostile.js";
import { alive } from "./support.js";

const SESSION = "hostile-session";
/** The history a session/load replays: an old question, its answer, an old tool call and thought. */
const HISTORY = [
  { sessionUpdate: "user_message_chunk", content: { type: "text", text: "OLD QUESTION" } },
  { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "OLD THOUGHT" } },
  {
    sessionUpdate: "tool_call",
    toolCallId: "old-call",
    title: "Read old.txt",
    kind: "read",
    status: "completed",
    rawInput: { path: "old.txt" },
  },
  { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "OLD ANSWER" } },
];
const replay: HostileStep[] = HISTORY.map((update) => ({ update }));
/** Resolves once `done()` holds, checking every 100 ms; rejects after `withinMs`. */
async function until(done: () => boolean, withinMs: number): Promise<void> {
  for (const start = Date.now(); !done(); await sleep(100)) {
    if (Date.now() - start > withinMs) throw new Error(`not done within ${withinMs} ms`);
  }
}

const NEW_TURN = [[text("new answer"), { respond: { stopReason: "end_turn" } }]];

async function loadedTurn(load: HostileStep[]) {
  const driver = hostileAcp({ "session/load": load, "session/prompt": NEW_TURN });
  try {
    return await runDriver(driver, { prompt: "next question", session: { resumeId: SESSION } });
  } finally {
    await driver.close();
  }
}

describe("output belongs to its own turn (hostile agent)", () => {
  for (const [when, load] of [
    ["during session/load", [...replay, { respond: {} }]],
    ["right after answering session/load", [{ respond: {} }, ...replay]],
    ["a while after answering session/load", [{ respond: {} }, { sleepMs: 1_000 }, ...replay]],
  ] as const) {
    it(`history replayed ${when} is not the new turn's text, thinking, tool calls or transcript`, async () => {
      const run = await loadedTurn([...load]);
      expect(run.error).toBeUndefined();
      expect(run.response?.text).toBe("new answer");
      expect(run.recording.text()).toBe("new answer");
      expect(run.recording.ofType("thinking-delta")).toEqual([]);
      expect(run.recording.ofType("tool-call")).toEqual([]);
      expect(JSON.stringify(run.response?.transcript)).not.toMatch(/OLD/);
      expect(run.recording.ofType("notice").find((n) => n.data?.["replayed"] !== undefined)?.data).toEqual({ replayed: 4 });
    });
  }

  it("text the agent sends after its turn ended does not land in the next turn: the process is not reused", async () => {
    const driver = hostileAcp({
      "session/prompt:first": [text("first answer"), { respondThen: { result: { stopReason: "end_turn" }, updates: [HISTORY[3]!] } }],
      "session/prompt:second": [text("second answer"), { respond: { stopReason: "end_turn" } }],
    });
    try {
      const first = await runDriver(driver, { prompt: "first", reuseProcess: true });
      expect(first.response?.checkpoint).toEqual({ resumeId: SESSION });
      expect(first.response?.text).toBe("first answer");
      const second = await runDriver(driver, { prompt: "second", reuseProcess: true, session: { resumeId: SESSION } });
      expect(second.error).toBeUndefined();
      expect(second.response?.text).toBe("second answer");
      expect(second.recording.text()).toBe("second answer");
      // A new process continued the session (session/load), the one that wrote late was ended.
      expect(second.recording.pids()).toHaveLength(1);
      expect(second.recording.pids()[0]).not.toBe(first.recording.pids()[0]);
    } finally {
      await driver.close();
    }
  });

  it("an agent that writes a turn's output while parked is ended then, not after idleMs; the conversation's next turn is told", async () => {
    // The late write waits until the test has seen the turn end (the process parked).
    const dir = mkdtempSync(join(tmpdir(), "acp-parked-"));
    const parked = join(dir, "parked");
    const driver = hostileAcp({
      "session/prompt:first": [
        text("first answer"),
        { respond: { stopReason: "end_turn" } },
        { later: [{ awaitFile: parked }, { update: HISTORY[3] }] },
      ],
      "session/prompt:second": [text("second answer"), { respond: { stopReason: "end_turn" } }],
    });
    try {
      const first = await runDriver(driver, { prompt: "first", reuseProcess: true });
      expect(first.response?.checkpoint).toEqual({ resumeId: SESSION });
      const [pid] = first.recording.pids();
      expect(alive(pid!)).toBe(true);
      writeFileSync(parked, "");
      await until(() => !alive(pid!), 20_000);
      const second = await runDriver(driver, { prompt: "second", reuseProcess: true, session: { resumeId: SESSION } });
      expect(second.response?.text).toBe("second answer");
      expect(second.recording.ofType("notice").find((n) => n.message?.startsWith("parked process ended") === true)?.data).toEqual({
        pid,
        sessionId: SESSION,
      });
    } finally {
      await driver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);

  it.each([
    ["a permission ask", { permission: { toolCallId: "late", title: "rm -rf ~", kind: "execute" } }],
    ["an fs request", { request: "fs/read_text_file", params: { path: "/etc/hostname" } }],
    ["a terminal request", { request: "terminal/create", params: { command: "sleep", args: ["1000"] } }],
  ])(
    "an agent that sends %s while parked is ended then, not reused by the next turn",
    async (_, late) => {
      const dir = mkdtempSync(join(tmpdir(), "acp-parked-"));
      const parked = join(dir, "parked");
      const driver = hostileAcp({
        "session/prompt:first": [text("first answer"), { respond: { stopReason: "end_turn" } }, { later: [{ awaitFile: parked }, late] }],
        "session/prompt:second": [text("second answer"), { respond: { stopReason: "end_turn" } }],
      });
      try {
        const first = await runDriver(driver, { prompt: "first", reuseProcess: true });
        expect(first.response?.checkpoint).toEqual({ resumeId: SESSION });
        const [pid] = first.recording.pids();
        expect(alive(pid!)).toBe(true);
        writeFileSync(parked, "");
        await until(() => !alive(pid!), 20_000);
        const second = await runDriver(driver, { prompt: "second", reuseProcess: true, session: { resumeId: SESSION } });
        expect(second.response?.text).toBe("second answer");
        expect(second.recording.pids()).toHaveLength(1);
        expect(second.recording.pids()[0]).not.toBe(pid);
        expect(second.recording.ofType("notice").find((n) => n.message?.startsWith("parked process ended") === true)?.data).toEqual({
          pid,
          sessionId: SESSION,
        });
      } finally {
        await driver.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    40_000,
  );
});
