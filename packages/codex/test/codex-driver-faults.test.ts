import { describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { codex } from "../src/index.js";

// Fault injection: the testkit's fake CLI plays codex app-server with exact JSON lines, for what the
// real binary will not do on cue (requests the driver does not handle, legacy approvals, crashes).

const line = (value: unknown): FakeCliStep => ({ write: `${JSON.stringify(value)}\n` });
const THREAD = { thread: { id: "t-fake" }, model: "fake-model", modelProvider: "fake" };
const handshake: FakeCliStep[] = [
  { awaitStdinLine: true }, // initialize
  line({ id: 1, result: { userAgent: "fake", codexHome: "/x", platformFamily: "unix", platformOs: "linux" } }),
  { awaitStdinLine: true }, // initialized
  { awaitStdinLine: true }, // thread/start
  line({ id: 2, result: THREAD }),
  { awaitStdinLine: true }, // turn/start
  line({ id: 3, result: { turn: { id: "u-fake", status: "inProgress", items: [], error: null } } }),
];
const completed = (status: string, error: unknown = null): FakeCliStep =>
  line({ method: "turn/completed", params: { threadId: "t-fake", turn: { id: "u-fake", status, items: [], error } } });

function fake(steps: FakeCliStep[]) {
  return codex({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300 });
}

/** The driver's answers, as the fake echoed them back (`{"type":"echo","line":...}` on stdout). */
function echoed(stdout: string[]): unknown[] {
  return stdout.map((text) => JSON.parse(text) as { type: string; line: unknown }).filter((e) => e.type === "echo").map((e) => e.line);
}

describe("codex app-server driver faults (fake CLI)", () => {
  it("an unknown server request gets a JSON-RPC method-not-found error, never silence", async () => {
    const driver = fake([
      ...handshake,
      line({ id: "srv-1", method: "item/tool/requestUserInput", params: { threadId: "t-fake", turnId: "u-fake", itemId: "i", questions: [] } }),
      { echoStdinLine: true },
      completed("completed"),
      { awaitStdinLine: true },
    ]);
    const run = await runDriver(driver, { prompt: "hi" });
    expect(run.response?.failure).toBeUndefined();
    const answers = echoed(run.recording.ofType("process").filter((p) => p.kind === "stdout").map((p) => p.text ?? ""));
    expect(answers).toEqual([{ id: "srv-1", error: { code: -32601, message: expect.stringContaining("item/tool/requestUserInput") } }]);
    expect(run.response?.checkpoint).toEqual({ resumeId: "t-fake", data: { lastTurnId: "u-fake" } });
  });

  it("legacy execCommandApproval and applyPatchApproval are asked and answered in their own vocabulary", async () => {
    const driver = fake([
      ...handshake,
      line({ id: 7, method: "execCommandApproval", params: { conversationId: "t-fake", callId: "c1", approvalId: null, command: ["echo", "hi"], cwd: "/w", reason: null, parsedCmd: [] } }),
      { echoStdinLine: true },
      line({
        id: 8,
        method: "applyPatchApproval",
        params: { conversationId: "t-fake", callId: "c2", fileChanges: { "/w/a.txt": { type: "add", content: "hello\n" } }, reason: null, grantRoot: null },
      }),
      { echoStdinLine: true },
      completed("completed"),
      { awaitStdinLine: true },
    ]);
    const run = await runDriver(driver, { prompt: "hi" }, {
      onApproval: (ask) => (ask.toolName === "shell" ? { outcome: "approve" } : { outcome: "deny", reason: "no patches" }),
    });
    expect(run.recording.asks.map((a) => [a.toolName, a.details?.command ?? a.details?.diff])).toEqual([
      ["shell", "echo hi"],
      ["apply_patch", "add /w/a.txt\nhello"],
    ]);
    const answers = echoed(run.recording.ofType("process").filter((p) => p.kind === "stdout").map((p) => p.text ?? ""));
    expect(answers).toEqual([
      { id: 7, result: { decision: "approved" } },
      { id: 8, result: { decision: { denied: { rejection: "no patches" } } } },
    ]);
  });

  it("codex exiting before turn/completed is agent_error carrying the stderr tail", async () => {
    const driver = fake([...handshake, { stderr: "fatal: model server vanished\n" }, { exit: 3 }]);
    const run = await runDriver(driver, { prompt: "hi" });
    expect(run.response?.failure).toMatchObject({ reason: "agent_error", details: { exitCode: 3 } });
    expect(run.response?.failure?.message).toContain("fatal: model server vanished");
    expect(run.response?.checkpoint).toBeUndefined();
  });

  it("a turn interrupted by codex itself (not by the host) is the failure cancelled", async () => {
    const driver = fake([...handshake, completed("interrupted"), { awaitStdinLine: true }]);
    const run = await runDriver(driver, { prompt: "hi" });
    expect(run.response?.failure).toMatchObject({ reason: "cancelled" });
    expect(run.response?.checkpoint).toBeUndefined();
  });

  it("a codex that ignores stdin EOF after the turn is terminated within the grace", async () => {
    const driver = fake([...handshake, completed("completed"), { ignoreSigterm: true }, { hang: true }]);
    const run = await runDriver(driver, { prompt: "hi" });
    expect(run.response?.checkpoint).toEqual({ resumeId: "t-fake", data: { lastTurnId: "u-fake" } });
    expect(run.response?.exit?.signal).toBe("SIGKILL");
    expect(run.durationMs).toBeLessThan(5_000);
  });
});
