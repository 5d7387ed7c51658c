import { describe, expect, it } from "vitest";
import type { Driver } from "@adaptor/driver";
import { runDriver } from "@adaptor/driver/testing";
import { fakeCliEnv, fakeCliPath, type FakeCliStep } from "@adaptor/testkit/fake-cli";
import { DriverError, ErrCode } from "@adaptor/errors";
import { codex } from "../src/index.js";
import { alive, FAKE_APP_SERVER_HANDSHAKE, fakeLine } from "./support.js";

// Fault injection: the testkit's fake CLI plays codex app-server with exact JSON lines, for what the
// real binary will not do on cue (requests the driver does not handle, legacy approvals, crashes).

const line = fakeLine;
const THREAD = { thread: { id: "t-fake" }, model: "fake-model", modelProvider: "fake" };
const handshake = FAKE_APP_SERVER_HANDSHAKE;
const completed = (status: string, error: unknown = null): FakeCliStep =>
  line({ method: "turn/completed", params: { threadId: "t-fake", turn: { id: "u-fake", status, items: [], error } } });

/** An app-server `item/completed` agent message of the fake's turn. */
const agentMessage = (text: string): FakeCliStep =>
  line({
    method: "item/completed",
    params: { threadId: "t-fake", turnId: "u-fake", item: { type: "agentMessage", id: `m-${text}`, text, phase: null } },
  });

// The exec transport's fake: JSON Lines events.
const exec = (value: unknown): FakeCliStep => line(value);
const execDriver = (steps: FakeCliStep[]) => codex({ command: fakeCliPath, transport: "exec", killGraceMs: 300, env: fakeCliEnv(steps) });
const message = (id: string, text: string): FakeCliStep => exec({ type: "item.completed", item: { id, type: "agent_message", text } });
const begun: FakeCliStep[] = [exec({ type: "thread.started", thread_id: "t-exec" }), exec({ type: "turn.started" })];
const usage = { input_tokens: 7, cached_input_tokens: 0, output_tokens: 3 };

function fake(steps: FakeCliStep[]) {
  return codex({ command: fakeCliPath, env: fakeCliEnv(steps), killGraceMs: 300 });
}

/** The driver's answers, as the fake echoed them back (`{"type":"echo","line":...}` on stdout). */
function echoed(stdout: string[]): unknown[] {
  return stdout
    .map((text) => JSON.parse(text) as { type: string; line: unknown })
    .filter((e) => e.type === "echo")
    .map((e) => e.line);
}

/**
 * Runs `driver` (a codex that closes its stdout mid-turn and stays alive) and expects the verdict
 * of a CLI the SDK ended after the kill grace, and no process left.
 */
async function expectEndedAfterStdoutClosed(driver: Driver): Promise<void> {
  const run = await runDriver(driver, { prompt: "hi" });
  expect(run.error).toBeUndefined();
  expect(run.response?.failure).toMatchObject({
    reason: "agent_error",
    message:
      "codex exited (ended by the SDK with SIGTERM: its stdout had ended and it did not exit within the kill grace) before the turn completed",
  });
  expect(run.response?.exit).toMatchObject({ signal: "SIGTERM", endedByDriver: true });
  const pid = run.recording.ofType("process").find((p) => p.kind === "spawn")?.pid;
  expect(alive(pid!)).toBe(false);
}

describe("codex app-server driver faults (fake CLI)", () => {
  it("an unknown server request gets a JSON-RPC method-not-found error, never silence", async () => {
    const driver = fake([
      ...handshake,
      line({
        id: "srv-1",
        method: "attestation/generate",
        params: { threadId: "t-fake", turnId: "u-fake" },
      }),
      { echoStdinLine: true },
      completed("completed"),
      { awaitStdinLine: true },
    ]);
    const run = await runDriver(driver, { prompt: "hi" });
    expect(run.response?.failure).toBeUndefined();
    const answers = echoed(
      run.recording
        .ofType("process")
        .filter((p) => p.kind === "stdout")
        .map((p) => p.text ?? ""),
    );
    expect(answers).toEqual([{ id: "srv-1", error: { code: -32601, message: expect.stringContaining("attestation/generate") } }]);
    expect(run.response?.checkpoint).toEqual({ resumeId: "t-fake", data: { lastTurnId: "u-fake" } });
  });

  it("legacy execCommandApproval and applyPatchApproval are asked and answered in their own vocabulary", async () => {
    const driver = fake([
      ...handshake,
      line({
        id: 7,
        method: "execCommandApproval",
        params: {
          conversationId: "t-fake",
          callId: "c1",
          approvalId: null,
          command: ["echo", "hi"],
          cwd: "/w",
          reason: null,
          parsedCmd: [],
        },
      }),
      { echoStdinLine: true },
      line({
        id: 8,
        method: "applyPatchApproval",
        params: {
          conversationId: "t-fake",
          callId: "c2",
          fileChanges: { "/w/a.txt": { type: "add", content: "hello\n" } },
          reason: null,
          grantRoot: null,
        },
      }),
      { echoStdinLine: true },
      completed("completed"),
      { awaitStdinLine: true },
    ]);
    const run = await runDriver(
      driver,
      { prompt: "hi" },
      {
        onApproval: (ask) => (ask.toolName === "shell" ? { outcome: "approve" } : { outcome: "deny", reason: "no patches" }),
      },
    );
    expect(run.recording.asks.map((a) => [a.toolName, a.details?.command ?? a.details?.diff])).toEqual([
      ["shell", "echo hi"],
      ["apply_patch", "add /w/a.txt\nhello"],
    ]);
    const answers = echoed(
      run.recording
        .ofType("process")
        .filter((p) => p.kind === "stdout")
        .map((p) => p.text ?? ""),
    );
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

  for (const transport of ["app-server", "exec"] as const)
    it(`${transport}: a credential the run hands codex reads [redacted] in its stderr events (also split over two writes), the failure's stderr tail and raw stderr`, async () => {
      const key = "cdxEnvKey-QWERTY123456";
      const steps: FakeCliStep[] = [
        ...(transport === "exec" ? begun : handshake),
        { stderr: `fatal: key ${key.slice(0, 10)}` },
        { stderr: `${key.slice(10)} refused\n` },
        { exit: 3 },
      ];
      const driver = codex({ command: fakeCliPath, transport, killGraceMs: 300, env: { ...fakeCliEnv(steps), PROVIDER_API_KEY: key } });
      try {
        const run = await runDriver(driver, { prompt: "hi" });
        const stderr = run.recording
          .ofType("process")
          .flatMap((p) => (p.kind === "stderr" ? [p.text ?? ""] : []))
          .join("");
        // One marker when the rest came before the held line was handed on, two when after (cut there).
        expect(stderr).toMatch(/^fatal: key (\[redacted\]){1,2} refused\n$/);
        expect(run.response?.failure?.message).toContain("fatal: key [redacted] refused");
        expect(run.response?.raw?.stderr).toBe("fatal: key [redacted] refused\n");
        expect(JSON.stringify(run.response?.failure)).not.toContain(key.slice(-8));
      } finally {
        await driver.close();
      }
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
  });
});

describe("codex app-server: the first terminal decides (fake CLI)", () => {
  it("a codex that closes its stdout mid-turn and stays alive is agent_error saying the SDK ended it after the kill grace", async () => {
    await expectEndedAfterStdoutClosed(fake([...handshake, { closeStdout: true }, { hang: true }]));
  });
});

describe("codex app-server turn isolation and unanswered requests (fake CLI)", () => {
  it("events and usage of another turn (late, or replayed before the turn id is known) never reach this turn", async () => {
    const usage = (turnId: string, input: number): FakeCliStep =>
      line({
        method: "thread/tokenUsage/updated",
        params: {
          threadId: "t-fake",
          turnId,
          tokenUsage: {
            total: {
              totalTokens: 0,
              inputTokens: 0,
              cachedInputTokens: 0,
              cacheWriteInputTokens: 0,
              outputTokens: 0,
              reasoningOutputTokens: 0,
            },
            last: {
              totalTokens: input + 1,
              inputTokens: input,
              cachedInputTokens: 0,
              cacheWriteInputTokens: 0,
              outputTokens: 1,
              reasoningOutputTokens: 0,
            },
            modelContextWindow: null,
          },
        },
      });
    const delta = (turnId: string, text: string): FakeCliStep =>
      line({ method: "item/agentMessage/delta", params: { threadId: "t-fake", turnId, itemId: `m-${turnId}`, delta: text } });
    const driver = fake([
      ...handshake.slice(0, -1),
      // Before the turn/start reply: the previous turn's late delta and replayed usage, then this turn's first delta.
      delta("u-old", "stale "),
      usage("u-old", 900),
      delta("u-fake", "fresh "),
      handshake.at(-1)!,
      delta("u-old", "late "),
      usage("u-fake", 40),
      delta("u-fake", "answer"),
      completed("completed"),
      { awaitStdinLine: true },
    ]);
    const run = await runDriver(driver, { prompt: "hi" });
    expect(run.error).toBeUndefined();
    expect(run.recording.ofType("text-delta").map((d) => d.text)).toEqual(["fresh ", "answer"]);
    expect(run.response?.usage).toMatchObject({ inputTokens: 40, outputTokens: 1 });
    expect(run.recording.ofType("notice").find((n) => n.message === "events of another turn ignored")?.data).toEqual({ count: 3 });
  });

  it("deltas of this turn give the same text-delta events in codex's own shape and in any other; a line that only looks like one is stdout", async () => {
    const params = (itemId: string, delta: string) => ({ threadId: "t-fake", turnId: "u-fake", itemId, delta });
    const raw = (text: string): FakeCliStep => ({ write: `${text}\n` });
    const exact = JSON.stringify({ method: "item/agentMessage/delta", params: params("m-1", "plain ") });
    const driver = fake([
      ...handshake,
      // Usually lets the driver learn the turn id first, so the lines below take the direct way
      // rather than being held and replayed; the events must be the same either way.
      { sleepMs: 300 },
      raw(exact),
      line({ method: "item/agentMessage/delta", params: params("m-1", 'esc "\\\n😀 '), emittedAtMs: 1796009019157 }),
      line({ method: "item/agentMessage/delta", params: { delta: "reordered ", itemId: "m-1", turnId: "u-fake", threadId: "t-fake" } }),
      raw(exact.replace("plain ", "spaced ").replace('{"threadId"', '{ "threadId"')),
      raw(exact.replace("plain ", "bad\\q")), // not JSON
      line({ method: "item/agentMessage/delta", params: { ...params("m-1", "other thread "), threadId: "t-other" } }),
      line({ method: "item/agentMessage/delta", params: params("m-2", "second") }),
      line({
        method: "item/completed",
        params: { threadId: "t-fake", turnId: "u-fake", item: { type: "agentMessage", id: "m-1", text: "one" } },
      }),
      line({
        method: "item/completed",
        params: { threadId: "t-fake", turnId: "u-fake", item: { type: "agentMessage", id: "m-3", text: "unstreamed" } },
      }),
      completed("completed"),
      { awaitStdinLine: true },
    ]);
    const run = await runDriver(driver, { prompt: "hi" });
    expect(run.error).toBeUndefined();
    expect(run.recording.ofType("text-delta").map((d) => [d.messageId, d.text])).toEqual([
      ["m-1", "plain "],
      ["m-1", 'esc "\\\n😀 '],
      ["m-1", "reordered "],
      ["m-1", "spaced "],
      ["m-2", "second"],
      ["m-3", "unstreamed"], // m-1 was streamed: its completed text is not repeated
    ]);
    const stdout = run.recording
      .ofType("process")
      .filter((p) => p.kind === "stdout")
      .map((p) => p.text);
    expect(stdout).toEqual([exact.replace("plain ", "bad\\q")]);
    expect(run.recording.ofType("notice").find((n) => n.message === "events of another turn ignored")).toBeUndefined();
    expect(run.response?.text).toBe("unstreamed");
  });

  it("an approval request after the turn's terminal result is declined to codex at once; the host is not asked; a notice records it", async () => {
    const driver = fake([
      ...handshake,
      completed("completed"),
      line({
        id: 9,
        method: "item/commandExecution/requestApproval",
        params: { threadId: "t-fake", turnId: "u-fake", itemId: "c9", command: "rm -rf /", cwd: "/w", startedAtMs: 0 },
      }),
      { awaitStdinLine: true },
    ]);
    const asked: unknown[] = [];
    const run = await runDriver(driver, { prompt: "hi" }, { onApproval: (ask) => (asked.push(ask), { outcome: "approve" }) });
    expect(run.error).toBeUndefined();
    expect(run.response?.failure).toBeUndefined();
    expect(asked).toEqual([]);
    // (The decline is written at once; whether it lands before the driver closes codex's stdin after
    // the terminal result is up to the pipes, so only the decision is pinned here.)
    expect(run.recording.ofType("notice").find((n) => n.message === "approval request after the turn ended declined")?.data).toMatchObject({
      id: 9,
      turnId: "u-fake",
    });
  });

  it("an approval request of another turn is declined without asking the host", async () => {
    const driver = fake([
      ...handshake,
      line({
        id: 5,
        method: "item/commandExecution/requestApproval",
        params: { threadId: "t-fake", turnId: "u-old", itemId: "c5", command: "echo old", cwd: "/w", startedAtMs: 0 },
      }),
      { echoStdinLine: true },
      completed("completed"),
      { awaitStdinLine: true },
    ]);
    const asked: unknown[] = [];
    const run = await runDriver(driver, { prompt: "hi" }, { onApproval: (ask) => (asked.push(ask), { outcome: "approve" }) });
    expect(asked).toEqual([]);
    const answers = echoed(
      run.recording
        .ofType("process")
        .filter((p) => p.kind === "stdout")
        .map((p) => p.text ?? ""),
    );
    expect(answers).toEqual([{ id: 5, result: { decision: "decline" } }]);
    expect(run.recording.ofType("notice").map((n) => n.message)).toContain("approval request of another turn declined");
  });

  it("a codex that never answers a request: the run ends with a TIMEOUT DriverError naming the request, no process left", async () => {
    const driver = codex({
      command: fakeCliPath,
      env: fakeCliEnv([{ awaitStdinLine: true }, { hang: true }]),
      killGraceMs: 300,
      replyTimeoutMs: 500,
    });
    const run = await runDriver(driver, { prompt: "hi" });
    expect(run.error).toBeInstanceOf(DriverError);
    expect(run.error).toMatchObject({ code: ErrCode.Timeout, op: "initialize" });
    const pid = run.recording.ofType("process").find((p) => p.kind === "spawn")?.pid;
    expect(pid).toBeDefined();
    expect(alive(pid!)).toBe(false);
    await driver.close();
  });

  it("a codex that logs it could not read a request: the waiting request fails with an INVALID DriverError at once, escape codes stripped", async () => {
    const driver = fake([
      ...handshake.slice(0, -2),
      { awaitStdinLine: true },
      {
        stderr:
          "\u001b[2m2026-12-01T10:12:24Z\u001b[0m \u001b[31mERROR\u001b[0m transport: Failed to deserialize JSONRPCMessage: unexpected end of hex escape at line 1 column 133\n",
      },
      { hang: true },
    ]);
    const run = await runDriver(driver, { prompt: "hi" });
    expect(run.error).toBeInstanceOf(DriverError);
    expect(run.error).toMatchObject({ code: ErrCode.Invalid, op: "turn/start" });
    expect((run.error as Error).message).toContain("Failed to deserialize JSONRPCMessage: unexpected end of hex escape");
    expect((run.error as Error).message).not.toContain("\u001b");
  });
});

describe("codex app-server answers the driver reads (fake CLI)", () => {
  /** The run's error, checked to be a DRIVER DriverError of `op` whose process is gone. */
  async function malformed(steps: FakeCliStep[], request: Parameters<typeof runDriver>[1], op: string): Promise<Error> {
    const driver = fake(steps);
    const run = await runDriver(driver, request);
    expect(run.error).toBeInstanceOf(DriverError);
    expect(run.error).toMatchObject({ code: ErrCode.Driver, op, device: "codex" });
    const pid = run.recording.ofType("process").find((p) => p.kind === "spawn")?.pid;
    expect(pid).toBeDefined();
    expect(alive(pid!)).toBe(false);
    await driver.close();
    return run.error as Error;
  }

  it("a turn/start answer without turn (a thread/turns/list page instead) ends the run with a DRIVER DriverError naming turn/start, not a TypeError", async () => {
    const error = await malformed(
      [...handshake.slice(0, -1), line({ id: 3, result: { data: [{ id: "u-fake" }], nextCursor: null } }), { awaitStdinEnd: true }],
      { prompt: "hi" },
      "turn/start",
    );
    expect(error.message).toBe('[DRIVER] turn/start: codex (the answer has no turn.id: {"data":[{"id":"u-fake"}],"nextCursor":null})');
  });

  it("a thread/start answer without thread ends the run with a DRIVER DriverError naming thread/start", async () => {
    const error = await malformed(
      [...handshake.slice(0, 4), line({ id: 2, result: null }), { awaitStdinEnd: true }],
      { prompt: "hi" },
      "thread/start",
    );
    expect(error.message).toBe("[DRIVER] thread/start: codex (the answer is not an object: null)");
  });

  it("a thread/start answer naming another approval policy and sandbox than sent ends the run with a DRIVER DriverError before the turn, naming both", async () => {
    const error = await malformed(
      [
        ...handshake.slice(0, 4),
        line({ id: 2, result: { ...THREAD, approvalPolicy: "on-request", sandbox: { type: "dangerFullAccess" } } }),
        { awaitStdinEnd: true },
      ],
      { prompt: "hi", policy: { sandbox: "read_only" } },
      "thread/start",
    );
    expect(error.message).toBe(
      '[DRIVER] thread/start: codex (codex applied approval policy "on-request" and sandbox "danger-full-access" where the driver sent "never" and "read-only")',
    );
  });

  it("a thread/turns/list answer without data, when a resumed thread is rewound to its committed turn, ends the run with a DRIVER DriverError naming thread/turns/list", async () => {
    const error = await malformed(
      [
        ...handshake.slice(0, 3), // initialize, initialized
        { awaitStdinLine: true }, // config/read: what codex gives a new thread, sent with thread/resume
        line({ id: 2, result: { config: {} } }),
        { awaitStdinLine: true }, // thread/resume
        line({ id: 3, result: THREAD }),
        { awaitStdinLine: true }, // thread/turns/list
        line({ id: 4, result: { turns: [] } }),
        { awaitStdinEnd: true },
      ],
      { prompt: "hi", session: { resumeId: "t-fake", data: { lastTurnId: "u-old" } } },
      "thread/turns/list",
    );
    expect(error.message).toBe('[DRIVER] thread/turns/list: codex (the answer has no data list: {"turns":[]})');
  });
});

describe("codex exec driver faults (fake CLI)", () => {
  it("a codex exec that closes its stdout and stays alive is ended after the kill grace, not at the stall timeout: agent_error saying the SDK ended it", async () => {
    await expectEndedAfterStdoutClosed(execDriver([...begun, message("i0", "partial"), { closeStdout: true }, { hang: true }]));
  }, 30_000);

  it("a codex exec that keeps stdout open after turn.completed is ended after the grace; the verdict is the result already read", async () => {
    const driver = codex({
      command: fakeCliPath,
      transport: "exec",
      killGraceMs: 300,
      env: fakeCliEnv([
        exec({ type: "thread.started", thread_id: "t-exec" }),
        exec({ type: "turn.started" }),
        exec({ type: "item.completed", item: { id: "i0", type: "agent_message", text: "all done" } }),
        exec({ type: "turn.completed", usage: { input_tokens: 7, cached_input_tokens: 0, output_tokens: 3 } }),
        { ignoreSigterm: true },
        { hang: true },
      ]),
    });
    const run = await runDriver(driver, { prompt: "hi" });
    expect(run.error).toBeUndefined();
    expect(run.response?.failure).toBeUndefined();
    expect(run.response?.text).toBe("all done");
    expect(run.response?.usage).toMatchObject({ inputTokens: 7, outputTokens: 3 });
    expect(run.response?.checkpoint?.resumeId).toBe("t-exec");
    expect(run.response?.exit?.signal).toBe("SIGKILL");
    const pid = run.recording.ofType("process").find((p) => p.kind === "spawn")?.pid;
    expect(alive(pid!)).toBe(false);
  });
});

describe("codex: the first terminal decides, on both transports (fake CLI)", () => {
  it.each([
    {
      transport: "app-server",
      driver: () =>
        fake([
          ...handshake,
          agentMessage("done"),
          completed("completed"),
          agentMessage("late"),
          completed("failed", { message: "late failure", codexErrorInfo: null, additionalDetails: null }),
          { awaitStdinEnd: true },
        ]),
      checkpoint: { resumeId: "t-fake", data: { lastTurnId: "u-fake" } },
      dropped: 2,
    },
    {
      transport: "exec",
      driver: () =>
        execDriver([
          ...begun,
          message("i0", "done"),
          exec({ type: "turn.completed", usage }),
          message("i1", "late 1"),
          message("i2", "late 2"),
          exec({ type: "turn.failed", error: { message: "late failure" } }),
          { awaitStdinEnd: true },
        ]),
      checkpoint: { resumeId: "t-exec" },
      dropped: 3,
    },
  ])(
    "$transport: lines after the turn's terminal (more agent messages, a failed terminal) change neither the text nor the verdict; a runtime notice counts them",
    async ({ driver, checkpoint, dropped }) => {
      const run = await runDriver(driver(), { prompt: "hi" });
      expect(run.error).toBeUndefined();
      expect(run.response?.failure).toBeUndefined();
      expect(run.response?.text).toBe("done");
      expect(run.recording.ofType("text-delta").map((e) => e.text)).toEqual(["done"]);
      expect(run.response?.transcript.filter((item) => item.kind === "assistant")).toEqual([{ kind: "assistant", text: "done" }]);
      expect(run.response?.checkpoint).toMatchObject(checkpoint);
      expect(run.recording.ofType("notice").filter((n) => n.kind === "runtime")).toEqual([
        { type: "notice", kind: "runtime", message: "output after the turn's end dropped", data: { count: dropped } },
      ]);
    },
  );
});

describe("codex app-server: a file change granted for the session (fake app-server)", () => {
  /** A fileChange item of the fake's turn over `changes` ([path] or [path, move destination]). */
  const fileChange = (id: string, changes: [string, string?][], phase: "started" | "completed"): FakeCliStep =>
    line({
      method: `item/${phase}`,
      params: {
        threadId: "t-fake",
        turnId: "u-fake",
        item: {
          type: "fileChange",
          id,
          changes: changes.map(([path, moveTo]) => ({
            path,
            kind: moveTo === undefined ? { type: "add" } : { type: "update", move_path: moveTo },
            diff: "x\n",
          })),
          status: phase === "started" ? "inProgress" : "completed",
        },
      },
    });
  const unasked = (id: string, changes: [string, string?][]): FakeCliStep[] => [
    fileChange(id, changes, "started"),
    fileChange(id, changes, "completed"),
  ];

  it("a later change codex applies unasked is covered (coveredByAsk) only when every file it names, move destinations included, was in the granted patch", async () => {
    const driver = fake([
      ...handshake,
      fileChange("p1", [["/w/a.txt", "/w/m.txt"]], "started"),
      line({
        id: 7,
        method: "item/fileChange/requestApproval",
        params: { threadId: "t-fake", turnId: "u-fake", itemId: "p1", startedAtMs: 0 },
      }),
      { awaitStdinLine: true }, // the host's acceptForSession
      fileChange("p1", [["/w/a.txt", "/w/m.txt"]], "completed"),
      ...unasked("p2", [["/w/a.txt"]]),
      ...unasked("p3", [["/w/m.txt"], ["/w/a.txt"]]),
      ...unasked("p4", [["/w/a.txt"], ["/w/d.txt"]]),
      ...unasked("p5", [["/w/b.txt"]]),
      ...unasked("p6", [["/w/a.txt", "/w/elsewhere.txt"]]),
      agentMessage("done"),
      completed("completed"),
      { awaitStdinLine: true },
    ]);
    const run = await runDriver(
      driver,
      { prompt: "hi", policy: { approvals: { permission: "ask" } } },
      {
        onApproval: () => ({ outcome: "answer", choice: "acceptForSession" }),
      },
    );
    expect(run.error).toBeUndefined();
    const covered = Object.fromEntries(run.recording.ofType("tool-result").map((r) => [r.id, r.coveredByAsk === true]));
    // p1 was asked itself; p2, p3 touch only the granted files; p4, p5, p6 name a file outside the grant.
    expect(covered).toEqual({ p1: false, p2: true, p3: true, p4: false, p5: false, p6: false });
  });
});
