import { AdaptorError, DriverError, ErrCode, type Sentinel } from "@adaptor/errors";
import { describe, expect, it } from "vitest";
import { ProtocolError } from "../errors/protocol-error.js";
import { ErrInvalidAgentCard, ErrNotFound, ErrUnauthorized, ErrUnsupported, ErrUntrustedOrigin } from "../errors/sentinels.js";
import { StreamRecoveryError } from "../errors/stream-recovery-error.js";
import { DelegationError } from "./delegation-error.js";
import { toDelegationError } from "./delegate.js";

const failed = (op: string, sentinel?: Sentinel) =>
  new ProtocolError({ op, reason: "x", ...(sentinel ? { cause: new AdaptorError("x", { sentinel }) } : {}) });

describe("toDelegationError: each client failure becomes one DelegationError code", () => {
  it.each([
    ["untrusted_origin", false, failed("agent-card", ErrUntrustedOrigin)],
    ["unauthorized", false, failed("message/send", ErrUnauthorized)],
    ["invalid_agent_card", false, failed("agent-card", ErrInvalidAgentCard)],
    ["not_found", false, failed("tasks/get", ErrNotFound)],
    ["unsupported", false, failed("message/send", ErrUnsupported)],
    ["protocol", false, failed("message/stream")],
    [
      "unreachable",
      true,
      new ProtocolError({
        op: "message/send",
        reason: "connection failed",
        cause: new DriverError({ op: "message/send", device: "a2a", code: ErrCode.ServiceUnavailable }),
      }),
    ],
    ["stream_lost", true, new StreamRecoveryError("task-3", new Error("socket hang up"), 3)],
  ] as const)("%s (retryable %s)", (code, retryable, error) => {
    const result = toDelegationError(error, "task-3");
    expect(result).toBeInstanceOf(DelegationError);
    expect(result).toMatchObject({ code, retryable, metadata: { taskId: "task-3" } });
    expect(result.cause).toBeUndefined();
    expect(result.message).not.toContain("socket hang up");
  });

  it("keeps the op of the failed client call in metadata, and passes a DelegationError through", () => {
    expect(toDelegationError(failed("tasks/cancel", ErrNotFound), undefined).metadata).toEqual({ op: "tasks/cancel" });
    const existing = new DelegationError({ code: "rejected", message: "remote agent: no", retryable: false });
    expect(toDelegationError(new Error("wrapped", { cause: existing }), "t")).toBe(existing);
  });

  it("an unexpected error (not a client identity) becomes protocol with the error kept as its cause", () => {
    const unexpected = new RangeError("Invalid string length");
    const result = toDelegationError(unexpected, "task-9");
    expect(result).toMatchObject({ code: "protocol", retryable: false, message: "the delegation failed", metadata: { taskId: "task-9" } });
    expect(result.cause).toBe(unexpected);
  });
});
