import { describe, expect, it } from "vitest";
import { ErrThreadSessionUnavailable, Result, RunError, StructuredOutput, ThreadSessionError, type ResultInit } from "adaptor";
import { readResult, resultMembers } from "../../test/support/result-members.js";
import { isError } from "@adaptor/errors";
import { FleetRemoteError, FleetRunExpiredError, type StoredError } from "../errors/fleet-errors.js";
import { ErrFleetRunExpired } from "../errors/sentinels.js";
import { expiredVerdict, loadVerdict, storeOutcome, type StoredVerdict } from "./verdict.js";

/** The Result another host gets for `result`: stored, through JSON (as PostgreSQL keeps it), loaded. */
function throughTheFleet(
  outcome: { ok: true; value: Result } | { ok: false; error: unknown },
): { ok: true; value: Result } | { ok: false; error: Error } {
  const stored = JSON.parse(JSON.stringify(storeOutcome(outcome))) as StoredVerdict;
  return loadVerdict("run-1", stored);
}

const schema = { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] };

// Every field a Result is made with (`Required`: a field added to ResultInit fails to compile here
// until this test gives it a value, and so until the fleet is checked to carry it).
const everyField: Required<ResultInit> = {
  runId: "019a0000-0000-7000-8000-000000000001",
  model: "claude-sonnet-4-5",
  provider: "anthropic",
  text: '{"answer":"forty-two"}',
  sessionId: "session-1",
  usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 3, cacheWriteTokens: 2 },
  costUsd: 0.0125,
  durationMs: 1234,
  numTurns: 3,
  durationApiMs: 987,
  modelUsage: {
    "claude-sonnet-4-5": { inputTokens: 8, outputTokens: 4, cacheReadTokens: 3, cacheWriteTokens: 2, costUsd: 0.01 },
    "claude-haiku-4-5": { inputTokens: 2, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.0025 },
  },
  permissionDenials: [{ toolName: "Bash", toolCallId: "toolu_1", input: { command: "rm -rf build" } }],
  structured: new StructuredOutput({
    source: "native",
    schema,
    schemaName: "answer",
    present: true,
    value: { answer: "forty-two" },
    errors: [{ path: "/answer", message: "must be number", keyword: "type" }],
  }),
  raw: {
    stdout: '{"type":"result"}\n',
    stderr: "warning\n",
    stdoutBytes: 18,
    stderrBytes: 8,
    stdoutTruncated: false,
    stderrTruncated: true,
    terminal: { event: "result", json: '{"type":"result"}' },
  },
  transcript: [
    { kind: "user", text: "answer" },
    { kind: "tool-call", toolCallId: "t1", toolName: "StructuredOutput", input: { answer: "forty-two" } },
    { kind: "tool-result", toolCallId: "t1", toolName: "StructuredOutput", text: "ok", isError: false },
    { kind: "assistant", text: '{"answer":"forty-two"}' },
  ],
  pendingApproval: {
    id: "a1",
    key: "thread-1",
    kind: "command",
    title: "npm test",
    toolName: "shell",
    toolCallId: "t2",
    input: { command: "npm test" },
    choices: [{ key: "y", label: "Yes", description: "run it" }],
    createdAt: new Date("2026-12-05T10:00:00.000Z"),
    deadline: new Date("2026-12-05T11:00:00.000Z"),
    onDeadline: "deny",
    turn: { prompt: "answer" },
    status: "answered",
    decision: { outcome: "approve" },
    resolvedAt: new Date("2026-12-05T10:30:00.000Z"),
  },
  interrupted: true,
  enforcement: [{ field: "sandbox", value: "read-only", enforced: true, mechanisms: ["cli_flag"], detail: "--sandbox read-only" }],
};

describe("a Result through the fleet's verdict", () => {
  it("the members a host reads on a Result are the ones this test compares (a new member must be carried by the verdict and added here)", () => {
    expect(resultMembers()).toEqual([
      "costUsd",
      "decode",
      "durationApiMs",
      "durationMs",
      "enforcement",
      "model",
      "modelUsage",
      "numTurns",
      "pendingApproval",
      "permissionDenials",
      "provider",
      "raw",
      "runId",
      "sessionId",
      "status",
      "structuredOutput",
      "text",
      "transcript",
      "usage",
    ]);
  });

  it.each([
    ["every field set, suspended, an invalid checked structured answer", new Result(everyField)],
    [
      "a valid checked structured answer, prompt source",
      new Result({
        ...everyField,
        pendingApproval: undefined,
        interrupted: false,
        structured: new StructuredOutput({ source: "prompt", schema, present: true, value: { answer: 42 }, errors: [] }),
      }),
    ],
    [
      "a missing checked structured answer",
      new Result({
        ...everyField,
        pendingApproval: undefined,
        structured: new StructuredOutput({
          source: "native",
          schema,
          present: false,
          errors: [{ path: "", message: "none", keyword: "missing" }],
        }),
      }),
    ],
    [
      "interrupted, a native value without a schema beside a fenced text",
      new Result({ ...everyField, pendingApproval: undefined, text: '```json\n{"answer":42}\n```', structured: { answer: 42 } }),
    ],
    [
      "only the required fields, a text that is not JSON",
      new Result({ runId: "r", text: "hello", durationMs: 0, raw: { stdout: "", stderr: "" }, transcript: [] }),
    ],
  ])("a Result (%s) reads the same, member by member, on the host that loads its verdict", (_name, result) => {
    const loaded = throughTheFleet({ ok: true, value: result });
    expect(loaded.ok).toBe(true);
    const fleet = (loaded as { value: Result }).value;
    expect(fleet).toBeInstanceOf(Result);
    const want = readResult(result);
    const got = readResult(fleet);
    for (const member of Object.keys(want)) expect({ [member]: got[member] }).toStrictEqual({ [member]: want[member] });
    if (result.structuredOutput) expect(fleet.structuredOutput).toBeInstanceOf(StructuredOutput);
  });

  it("a RunError's partial Result reads the same, member by member, on the host that loads its verdict", () => {
    const result = new Result({ ...everyField, pendingApproval: undefined, interrupted: false });
    const loaded = throughTheFleet({
      ok: false,
      error: new RunError({
        reason: "policy_violation",
        message: "structured output (native) is invalid",
        details: { source: "native" },
        result,
      }),
    });
    expect(loaded.ok).toBe(false);
    const error = (loaded as { error: Error }).error;
    expect(error).toBeInstanceOf(RunError);
    const want = readResult(result);
    const got = readResult((error as RunError).result);
    for (const member of Object.keys(want)) expect({ [member]: got[member] }).toStrictEqual({ [member]: want[member] });
  });

  it("an expired run's verdict reads as FleetRunExpiredError here, and as a FleetRemoteError of the same name, message, code and sentinel on a host of an earlier version", () => {
    const stored = JSON.parse(JSON.stringify(expiredVerdict("run-1", 1_000))) as StoredVerdict;
    const loaded = loadVerdict("run-1", stored);
    expect(loaded.ok).toBe(false);
    const error = (loaded as { error: Error }).error;
    expect(error).toBeInstanceOf(FleetRunExpiredError);
    expect(error).toMatchObject({ runId: "run-1", queueDeadlineMs: 1_000, code: "TIMEOUT" });
    // What an earlier version's loadVerdict does with an `error` verdict (it knows no `expired`).
    expect(stored.kind).toBe("error");
    const older = new FleetRemoteError((stored as { error: StoredError }).error);
    for (const read of [error, older]) expect(isError(read, ErrFleetRunExpired)).toBe(true);
    expect({ name: older.name, message: older.message, code: older.code }).toEqual({
      name: error.name,
      message: error.message,
      code: (error as FleetRunExpiredError).code,
    });
  });

  it("an error's reason crosses hosts: a ThreadSessionError's restore_failed reads as the FleetRemoteError's reason, its sentinel kept; an error without one has none", () => {
    const worker = new ThreadSessionError({ key: "ticket-1", reason: "restore_failed", message: "thread ticket-1: restore failed" });
    const loaded = throughTheFleet({ ok: false, error: worker });
    const error = (loaded as { error: Error }).error;
    expect(error).toBeInstanceOf(FleetRemoteError);
    expect({ name: error.name, message: error.message, reason: (error as FleetRemoteError).reason }).toEqual({
      name: "ThreadSessionError",
      message: "thread ticket-1: restore failed",
      reason: "restore_failed",
    });
    expect(isError(error, ErrThreadSessionUnavailable)).toBe(true);
    const plain = (throughTheFleet({ ok: false, error: new Error("boom") }) as { error: Error }).error;
    expect((plain as FleetRemoteError).reason).toBeUndefined();
    // Stored by an earlier version: no reason.
    expect(new FleetRemoteError({ name: "ThreadSessionError", message: "m", sentinels: [] }).reason).toBeUndefined();
  });
});
