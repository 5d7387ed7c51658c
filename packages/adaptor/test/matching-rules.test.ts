// Seed 002 "Matching rules" and the notes under "Root business failures": what an abort, a timeout,
// an unknown failure code and a malformed policy do (and do not) match, that RunError keeps its
// Result and cause chain, and the DriverError message format of DESIGN.md.
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import {
  AdaptorError,
  Agent,
  DriverError,
  ErrAgentFailed,
  ErrApprovalDenied,
  ErrApprovalTimeout,
  ErrCode,
  ErrInvalidDriverConfig,
  ErrInvalidPolicy,
  ErrPolicyViolation,
  ErrRunCancelled,
  InvalidPolicyError,
  Result,
  RunError,
  errorCode,
  findError,
  isError,
  type RunOptions,
  type Sentinel,
} from "adaptor";
import { walkError } from "@adaptor/errors";
import { BASE_RESPONSE, fakeDriver, rejectOnAbort, rejectionOf } from "./support/fake-driver.js";
import { aggregated, causeChain, partialResult } from "./support/seed-002.js";
import { original } from "./support/surface.js";

/** The five business sentinels and their FailureReason strings. */
const BUSINESS: readonly (readonly [reason: string, name: string, sentinel: Sentinel])[] = [
  ["approval_denied", "ErrApprovalDenied", ErrApprovalDenied],
  ["approval_timeout", "ErrApprovalTimeout", ErrApprovalTimeout],
  ["agent_error", "ErrAgentFailed", ErrAgentFailed],
  ["cancelled", "ErrRunCancelled", ErrRunCancelled],
  ["policy_violation", "ErrPolicyViolation", ErrPolicyViolation],
];

/** Names of the business sentinels `err` matches. */
const businessMatches = (err: unknown): string[] => BUSINESS.filter(([, , sentinel]) => isError(err, sentinel)).map(([, name]) => name);

/** Every sentinel the root exports. */
const ROOT_SENTINELS = Object.entries(original.root).filter((entry): entry is [string, Sentinel] => original.errors.isSentinel(entry[1]));
const rootMatches = (err: unknown): string[] => ROOT_SENTINELS.filter(([, s]) => isError(err, s)).map(([n]) => n);

const runError = (reason: string, extra: { cause?: unknown } = {}): RunError =>
  new RunError({ reason, message: `run failed: ${reason}`, result: partialResult(original), ...extra });

describe("aborts and timeouts are infrastructure errors, not ErrRunCancelled", () => {
  it("an aborted AbortSignal's reason (AbortError) matches no business sentinel", () => {
    const reason: unknown = AbortSignal.abort().reason;
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe("AbortError");
    expect(businessMatches(reason)).toEqual([]);
    expect(businessMatches(causeChain(reason))).toEqual([]);
    expect(businessMatches(aggregated(reason))).toEqual([]);
    expect(rootMatches(causeChain(reason))).toEqual([]);
  });

  it("a fired AbortSignal.timeout's reason (TimeoutError) matches no business sentinel", async () => {
    const signal = AbortSignal.timeout(1);
    await once(signal, "abort");
    const reason: unknown = signal.reason;
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe("TimeoutError");
    expect(businessMatches(reason)).toEqual([]);
    expect(businessMatches(causeChain(reason))).toEqual([]);
    expect(rootMatches(aggregated(reason))).toEqual([]);
  });

  it("agent.run with an already aborted signal rejects with the signal's reason, not a RunError", async () => {
    const signal = AbortSignal.abort();
    let ran = false;
    const agent = new Agent(fakeDriver(async () => ((ran = true), {})));
    const err = await rejectionOf(agent.run("hello", { signal }));
    await agent.close();
    expect(walkError(err, (node) => node === signal.reason)).toBe(true);
    expect(findError(err, RunError)).toBeUndefined();
    expect(businessMatches(err)).toEqual([]);
    expect(ran).toBe(false);
  });

  it("agent.run aborted by AbortSignal.timeout mid-run rejects with the TimeoutError in the chain", async () => {
    const signal = AbortSignal.timeout(20);
    const agent = new Agent(fakeDriver(async (_request, runSignal) => rejectOnAbort(runSignal)));
    const err = await rejectionOf(agent.run("hello", { signal }));
    await agent.close();
    expect(walkError(err, (node) => node instanceof DOMException && node.name === "TimeoutError")).toBe(true);
    expect(findError(err, RunError)).toBeUndefined();
    expect(businessMatches(err)).toEqual([]);
  });

  it("stream.cancel() rejects the verdict with an AbortError that is not ErrRunCancelled", async () => {
    const agent = new Agent(fakeDriver(async (_request, runSignal) => rejectOnAbort(runSignal)));
    const stream = agent.stream("hello");
    stream.cancel();
    const err = await rejectionOf(stream.result());
    await agent.close();
    expect(walkError(err, (node) => node instanceof DOMException && node.name === "AbortError")).toBe(true);
    expect(findError(err, RunError)).toBeUndefined();
    expect(businessMatches(err)).toEqual([]);
  });

  it("the agent's own timeoutMs rejects with a DriverError TIMEOUT, not ErrRunCancelled", async () => {
    const agent = new Agent(fakeDriver(async (_request, runSignal) => rejectOnAbort(runSignal)));
    const err = await rejectionOf(agent.run("hello", { timeoutMs: 10 }));
    await agent.close();
    expect(errorCode(err)).toBe(ErrCode.Timeout);
    expect(findError(err, DriverError)?.message).toBe("[TIMEOUT] run: fake (exceeded timeoutMs=10)");
    expect(businessMatches(err)).toEqual([]);
  });
});

describe("RunError reasons select exactly one business sentinel", () => {
  it.each(BUSINESS)("reason %s matches %s and no other root sentinel", (reason, name) => {
    const err = runError(reason);
    expect(err.reason).toBe(reason);
    expect(rootMatches(causeChain(err))).toEqual([name]);
  });

  it('a RunError with reason "cancelled" matches ErrRunCancelled only', () => {
    const err = runError("cancelled");
    expect(isError(err, ErrRunCancelled)).toBe(true);
    expect(businessMatches(aggregated(err))).toEqual(["ErrRunCancelled"]);
  });

  it('an unknown reason ("quota_exhausted") stays readable on reason and matches none of the five', () => {
    const err = runError("quota_exhausted");
    expect(err.reason).toBe("quota_exhausted");
    expect(findError(causeChain(err), RunError)?.reason).toBe("quota_exhausted");
    expect(err.sentinels).toEqual([]);
    expect(businessMatches(causeChain(err))).toEqual([]);
    expect(rootMatches(causeChain(err))).toEqual([]);
    expect(err.result).toBeInstanceOf(Result);
  });

  // Regression: the reason table once was a plain object, so prototype member names threw.
  it.each(["constructor", "toString", "__proto__", "hasOwnProperty"])(
    'an unknown reason that names an Object.prototype member ("%s") is kept and matches none',
    (reason) => {
      const err = runError(reason);
      expect(err.reason).toBe(reason);
      expect(businessMatches(err)).toEqual([]);
    },
  );

  it("a driver failure with an unknown code reaches the host as RunError.reason, matching none of the five", async () => {
    const agent = new Agent(fakeDriver(async () => ({ failure: { reason: "quota_exhausted", message: "monthly quota exhausted" } })));
    const err = await rejectionOf(agent.run("hello"));
    await agent.close();
    expect(err).toBeInstanceOf(RunError);
    expect((err as RunError).reason).toBe("quota_exhausted");
    expect((err as RunError).message).toBe("monthly quota exhausted");
    expect(businessMatches(err)).toEqual([]);
  });

  it("a driver-classified cancellation reaches the host as ErrRunCancelled only", async () => {
    const agent = new Agent(fakeDriver(async () => ({ failure: { reason: "cancelled", message: "turn interrupted by the CLI" } })));
    const err = await rejectionOf(agent.run("hello"));
    await agent.close();
    expect(rootMatches(err)).toEqual(["ErrRunCancelled"]);
  });
});

describe("malformed policy is ErrInvalidPolicy, never ErrPolicyViolation", () => {
  it("InvalidPolicyError matches ErrInvalidPolicy and not ErrPolicyViolation", () => {
    const err = new InvalidPolicyError("claude", "sandbox", "wide_open");
    expect(isError(causeChain(err), ErrInvalidPolicy)).toBe(true);
    expect(isError(causeChain(err), ErrPolicyViolation)).toBe(false);
    expect(businessMatches(aggregated(err))).toEqual([]);
    expect(findError(causeChain(err), RunError)).toBeUndefined();
  });

  it("a policy_violation RunError matches ErrPolicyViolation and not ErrInvalidPolicy", () => {
    const err = runError("policy_violation");
    expect(isError(err, ErrPolicyViolation)).toBe(true);
    expect(isError(err, ErrInvalidPolicy)).toBe(false);
  });

  it.each([
    [{ sandbox: "wide_open" }, "sandbox", "wide_open"],
    [{ approvals: { permission: "sometimes" } }, "approvals.permission", "sometimes"],
    [{ approvals: { maxRetries: -1 } }, "approvals.maxRetries", "-1"],
  ])(
    "agent.run with malformed policy %o rejects with InvalidPolicyError(%s), never ErrPolicyViolation",
    async (policy, fieldName, value) => {
      let ran = false;
      const agent = new Agent(fakeDriver(async () => ((ran = true), {})));
      const err = await rejectionOf(agent.run("hello", { policy } as unknown as RunOptions));
      await agent.close();
      expect(ran).toBe(false);
      expect(isError(err, ErrInvalidPolicy)).toBe(true);
      expect(isError(err, ErrPolicyViolation)).toBe(false);
      expect(businessMatches(err)).toEqual([]);
      expect(findError(err, RunError)).toBeUndefined();
      const found = findError(err, InvalidPolicyError);
      expect([found?.driver, found?.field, found?.value]).toEqual(["fake", fieldName, value]);
    },
  );

  it("an InvalidPolicyError from validateConfig reaches the host matching ErrInvalidPolicy, with its fields", async () => {
    const rejected = new InvalidPolicyError("fake", "approvals.permission", "sometimes");
    let ran = false;
    const agent = new Agent(
      fakeDriver(
        async () => ((ran = true), {}),
        () => {
          throw rejected;
        },
      ),
    );
    const err = await rejectionOf(agent.run("hello"));
    await agent.close();
    expect(ran).toBe(false);
    expect(isError(err, ErrInvalidPolicy)).toBe(true);
    expect(isError(err, ErrInvalidDriverConfig)).toBe(true);
    expect(isError(err, ErrPolicyViolation)).toBe(false);
    expect(findError(err, RunError)).toBeUndefined();
    const found = findError(err, InvalidPolicyError);
    expect(found).toBe(rejected);
    expect([found?.driver, found?.field, found?.value]).toEqual(["fake", "approvals.permission", "sometimes"]);
  });
});

describe("RunError.result is never null and the cause chain is kept", () => {
  it("a RunError built with a Result and a DriverError cause exposes both", () => {
    const cause = new DriverError({ op: "run", device: "claude", code: ErrCode.Driver, cause: "API Error: 400" });
    const err = runError("agent_error", { cause });
    expect(err.result).not.toBeNull();
    expect(err.result).toBeInstanceOf(Result);
    expect(err.cause).toBe(cause);
    expect(findError(causeChain(err), DriverError)?.code).toBe("DRIVER");
    expect(errorCode(aggregated(err))).toBe("DRIVER");
    expect(findError(causeChain(err), RunError)?.result.text).toBe("I started reviewing the diff");
  });

  it("the Agent turns a driver failure into a RunError with the partial Result and the driver's cause", async () => {
    const cause = new DriverError({
      op: "run",
      device: "claude",
      code: ErrCode.Driver,
      cause: "API Error: 400 invalid_request_error",
    });
    const agent = new Agent(
      fakeDriver(async () => ({
        failure: {
          reason: "agent_error",
          message: "API Error: 400 invalid_request_error",
          details: { apiErrorStatus: 400 },
          cause,
        },
      })),
    );
    const err = await rejectionOf(agent.run("hello"));
    await agent.close();
    const host = new Error("review job 7 failed", { cause: err });
    const found = findError(host, RunError);
    expect(found).toBe(err);
    expect(found?.reason).toBe("agent_error");
    expect(found?.details).toEqual({ apiErrorStatus: 400 });
    expect(found?.result).toBeInstanceOf(Result);
    expect(found?.result.text).toBe(BASE_RESPONSE.text);
    expect(found?.result.usage).toEqual(BASE_RESPONSE.usage);
    expect(found?.result.raw()).toEqual(BASE_RESPONSE.raw);
    expect(found?.result.transcript()).toEqual(BASE_RESPONSE.transcript);
    expect(rootMatches(host)).toEqual(["ErrAgentFailed"]);
    expect(findError(host, DriverError)).toBe(cause);
    expect(findError(host, DriverError)?.code).toBe(ErrCode.Driver);
  });

  it("a driver failure without a cause still carries a non-null Result", async () => {
    const agent = new Agent(fakeDriver(async () => ({ failure: { reason: "approval_denied", message: "denied: Bash rm -rf /" } })));
    const err = await rejectionOf(agent.run("hello"));
    await agent.close();
    expect(err).toBeInstanceOf(RunError);
    expect((err as RunError).result).toBeInstanceOf(Result);
    expect((err as RunError).result.text).toBe(BASE_RESPONSE.text);
    expect((err as RunError).cause).toBeUndefined();
    expect(rootMatches(err)).toEqual(["ErrApprovalDenied"]);
  });
});

describe("matching is by identity, never by message", () => {
  it("an error whose message equals a sentinel's text does not match it", () => {
    expect(isError(new Error(ErrRunCancelled.message), ErrRunCancelled)).toBe(false);
    expect(isError(new AdaptorError(ErrRunCancelled.message), ErrRunCancelled)).toBe(false);
    expect(isError(new Error(ErrRunCancelled.id), ErrRunCancelled)).toBe(false);
    const lookalike = { id: ErrRunCancelled.id, message: ErrRunCancelled.message, also: [] };
    expect(isError(new AdaptorError("x", { cause: lookalike }), ErrRunCancelled)).toBe(false);
  });

  it("the same message on a different identity does not match", () => {
    const storeBusy = new AdaptorError("thread busy", { sentinel: original.threadstore.ErrBusy });
    expect(storeBusy.message).toBe(original.root.ErrThreadBusy.message);
    expect(isError(storeBusy, original.root.ErrThreadBusy)).toBe(false);
  });
});

describe("DriverError formats as [CODE] Op: device (cause)", () => {
  it.each([
    [
      { op: "spawn", device: "claude", code: ErrCode.NotFound, cause: "executable not found on PATH" },
      "[NOT_FOUND] spawn: claude (executable not found on PATH)",
    ],
    [{ op: "kill", device: "claude", code: ErrCode.ForceKilled }, "[FORCE_KILLED] kill: claude"],
    [
      { op: "write", device: "claude", code: ErrCode.BrokenPipe, cause: new Error("write EPIPE") },
      "[BROKEN_PIPE] write: claude (write EPIPE)",
    ],
    [
      { op: "read", device: "mcp:github", code: ErrCode.DeviceDisconnected, cause: "child exited with code 1" },
      "[DEVICE_DISCONNECTED] read: mcp:github (child exited with code 1)",
    ],
    [
      { op: "run", device: "codex", code: ErrCode.Timeout, cause: "no output for 120000ms" },
      "[TIMEOUT] run: codex (no output for 120000ms)",
    ],
  ] as const)("%o → %s", (init, message) => {
    const err = new DriverError(init);
    expect(err.message).toBe(message);
    expect(err.code).toBe(init.code);
    expect(err.op).toBe(init.op);
    expect(err.device).toBe(init.device);
    expect(errorCode(causeChain(err))).toBe(init.code);
    expect(findError(aggregated(err), DriverError)).toBe(err);
    expect(err.name).toBe("DriverError");
  });

  it("keeps an Error cause on the chain", () => {
    const cause = Object.assign(new Error("spawn claude ENOENT"), { code: "ENOENT" });
    const err = new DriverError({ op: "spawn", device: "claude", code: ErrCode.NotFound, cause });
    expect(err.cause).toBe(cause);
    expect(walkError(causeChain(err), (node) => node === cause)).toBe(true);
  });
});
