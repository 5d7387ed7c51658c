import { AdaptorError, DriverError, ErrCode, errorCode, findError, isError } from "@adaptor/errors";
import { describe, expect, it } from "vitest";
import { DelegationError } from "../delegation/delegation-error.js";
import { ProtocolError } from "./protocol-error.js";
import { MAX_RAW_CHARS, redactCredentials, sanitizeRaw } from "./sanitize.js";
import { ErrInvalidAgentCard, ErrNotFound, ErrProtocol, ErrUnauthorized, ErrUnsupported, ErrUntrustedOrigin } from "./sentinels.js";
import { StreamRecoveryError } from "./stream-recovery-error.js";

const CATEGORIES = [ErrInvalidAgentCard, ErrProtocol, ErrUnauthorized, ErrNotFound, ErrUnsupported, ErrUntrustedOrigin];
const matched = (err: unknown) => CATEGORIES.filter((c) => isError(err, c)).map((c) => c.id);

describe("ProtocolError", () => {
  it("without a cause matches ErrProtocol and nothing else", () => {
    const err = new ProtocolError({ op: "message/stream", reason: "stream event without a payload" });
    expect(matched(err)).toEqual(["adaptor.a2a.Protocol"]);
    expect(err.cause).toBeUndefined();
    expect(err.message).toBe("a2a message/stream: stream event without a payload");
    expect(err.name).toBe("ProtocolError");
  });

  it("with a cause matches what the cause matches, not ErrProtocol, and keeps it on the chain", () => {
    const cause = new AdaptorError("task not found", { sentinel: ErrNotFound });
    const err = new ProtocolError({ op: "tasks/get", reason: "task not found", cause });
    expect(err.cause).toBe(cause);
    expect(matched(err)).toEqual(["adaptor.a2a.NotFound"]);
    const network = new DriverError({ op: "message/send", device: "a2a", code: ErrCode.ServiceUnavailable, cause: "ECONNREFUSED" });
    const down = new ProtocolError({ op: "message/send", reason: "connection failed", cause: network });
    expect(matched(down)).toEqual([]);
    expect(errorCode(down)).toBe(ErrCode.ServiceUnavailable);
  });

  it("keeps raw only sanitised: credentials the client sent, bearer values and secret fields redacted, controls removed, capped", () => {
    const err = new ProtocolError({
      op: "message/send",
      reason: "HTTP 401",
      raw: '{"error":"bad token Bearer abc.def-123","api_key":"k-777","echo":"s3cr3t-value"}\u001b[31m\u0007',
      secrets: ["s3cr3t-value"],
    });
    expect(err.raw).toBe('{"error":"bad token Bearer [redacted]","api_key":"[redacted]","echo":"[redacted]"}');
    const long = new ProtocolError({ op: "x", reason: "y", raw: "a".repeat(10_000) });
    expect(long.raw).toHaveLength(MAX_RAW_CHARS);
    expect(long.raw?.endsWith("…")).toBe(true);
    expect(new ProtocolError({ op: "x", reason: "y" }).raw).toBeUndefined();
  });

  it("redactCredentials redacts a URL's userinfo and the values of credential-named query parameters, and leaves other URLs alone", () => {
    const cases: [string, string][] = [
      ["Request cannot be constructed from http://user:PW-1@h:1/x", "Request cannot be constructed from http://[redacted]@h:1/x"],
      ['{"url":"https://ghp-token@git.example/r"}', '{"url":"https://[redacted]@git.example/r"}'],
      ["postgresql://user:pa ss@h/db is down", "postgresql://[redacted]@h/db is down"],
      ["HTTP 404 for http://h/card.json?api_key=K-1&page=2", "HTTP 404 for http://h/card.json?api_key=[redacted]&page=2"],
      [
        "http://h/?a=1&access_token=T-1&X-Amz-Signature=S-1&sig=G-1#id_token=I-1",
        "http://h/?a=1&access_token=[redacted]&X-Amz-Signature=[redacted]&sig=[redacted]#id_token=[redacted]",
      ],
      ["http://h/a@b?design=x&page=2 mail me@example.com", "http://h/a@b?design=x&page=2 mail me@example.com"],
    ];
    for (const [text, redacted] of cases) expect(redactCredentials(text)).toBe(redacted);
  });

  it("redactCredentials finds a sent credential base64-encoded inside a longer encoded text at any byte offset, and URL-encoded with lowercase hex", () => {
    const secret = "Zq9+/Wk3vT7pLm2Xr8Yb";
    const base64 = (text: string) => Buffer.from(text).toString("base64");
    const text = `state ${base64(JSON.stringify({ token: secret }))} cfg ${base64(`key=${secret}`)} url ${encodeURIComponent(secret).toLowerCase()}`;
    expect(redactCredentials(text, [secret])).toBe("state eyJ0b2tlbiI6Il[redacted]In0= cfg a2V5PV[redacted] url [redacted]");
    expect(redactCredentials(text, [`Bearer ${secret}`])).toBe("state eyJ0b2tlbiI6Il[redacted]In0= cfg a2V5PV[redacted] url [redacted]");
  });

  it("sanitizeRaw keeps newlines and tabs and ignores secrets too short to redact safely", () => {
    expect(sanitizeRaw("line one\n\tline two", ["ab"])).toBe("line one\n\tline two");
  });
});

describe("StreamRecoveryError", () => {
  it("exposes taskId, has no sentinel of its own and unwraps the disconnection or recovery cause", () => {
    const cause = new ProtocolError({
      op: "tasks/resubscribe",
      reason: "task not found",
      cause: new AdaptorError("gone", { sentinel: ErrNotFound }),
    });
    const err = new StreamRecoveryError("task-7", cause, 3);
    expect(err.taskId).toBe("task-7");
    expect(err.cause).toBe(cause);
    expect(err.sentinels).toEqual([]);
    expect(matched(err)).toEqual(["adaptor.a2a.NotFound"]);
    expect(findError(new Error("wrapped", { cause: err }), StreamRecoveryError)).toBe(err);
    expect(err.message).toBe(
      "a2a stream of task task-7 lost; not recovered after 3 attempt(s): a2a tasks/resubscribe: task not found (gone)",
    );
  });
});

describe("DelegationError", () => {
  it("carries code, message, retryable, remoteStatus and metadata; no sentinel, no cause", () => {
    const err = new DelegationError({
      code: "remote_failed",
      message: "remote agent: agent_error: the build is broken",
      retryable: false,
      remoteStatus: "failed",
      metadata: { taskId: "t1", failure: "agent_error" },
    });
    expect(err).toMatchObject({
      code: "remote_failed",
      retryable: false,
      remoteStatus: "failed",
      metadata: { taskId: "t1", failure: "agent_error" },
    });
    expect(err.message).toBe("remote agent: agent_error: the build is broken");
    expect(err.sentinels).toEqual([]);
    expect(err.cause).toBeUndefined();
    expect(matched(err)).toEqual([]);
    expect(Object.isFrozen(err.metadata)).toBe(true);
    expect(findError(new Error("outer", { cause: err }), DelegationError)).toBe(err);
  });
});
