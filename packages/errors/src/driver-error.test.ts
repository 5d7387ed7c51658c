import { describe, expect, it } from "vitest";
import { DriverError, ErrCode, findError } from "./index.js";

describe("DriverError's cause", () => {
  it("a reason given as text becomes an Error with that message and a stack, so every link of the chain is an Error", () => {
    const err = new DriverError({
      op: "initialize",
      device: "gemini",
      code: ErrCode.Timeout,
      cause: "no answer within 2000 ms (handshakeTimeoutMs)",
    });
    expect(err.cause).toBeInstanceOf(Error);
    const cause = err.cause as Error;
    expect(cause.name).toBe("Error");
    expect(cause.message).toBe("no answer within 2000 ms (handshakeTimeoutMs)");
    expect(cause.stack).toContain("no answer within 2000 ms (handshakeTimeoutMs)");
    expect(Object.hasOwn(cause, "cause")).toBe(false);
  });

  it("an Error given as cause is kept as it is", () => {
    const os = Object.assign(new Error("spawn claude ENOENT"), { code: "ENOENT" });
    const err = new DriverError({ op: "spawn", device: "claude", code: ErrCode.NotFound, cause: os });
    expect(err.cause).toBe(os);
    expect(findError(new Error("wrapped", { cause: err }), DriverError)).toBe(err);
  });

  it("with a detail, the cause is kept as given: a value that is not an Error (a driver's odd rejection) stays what it was", () => {
    for (const value of ["plain string failure", undefined, { code: 42 }]) {
      const err = new DriverError({
        op: "driver run",
        device: "mycli",
        code: ErrCode.Internal,
        cause: value,
        detail: "a value that is not an Error",
      });
      expect(err.cause).toBe(value);
      expect(Object.hasOwn(err, "cause")).toBe(true);
    }
  });

  it("without a cause there is none", () => {
    expect(Object.hasOwn(new DriverError({ op: "kill", device: "claude", code: ErrCode.ForceKilled }), "cause")).toBe(false);
    const timeout = new DriverError({
      op: "hook",
      device: "hooks.onStop",
      code: ErrCode.Timeout,
      detail: "did not settle within hookTimeoutMs=1000",
    });
    expect(Object.hasOwn(timeout, "cause")).toBe(false);
  });
});

describe("DriverError's message", () => {
  it("reads [CODE] op: device (reason) whether the reason is text, an Error's message or a detail", () => {
    const cases: [DriverError, string][] = [
      [
        new DriverError({ op: "spawn", device: "claude", code: ErrCode.NotFound, cause: "executable not found on PATH" }),
        "[NOT_FOUND] spawn: claude (executable not found on PATH)",
      ],
      [
        new DriverError({ op: "resolve", device: "threadstore-sqlite", code: ErrCode.DeviceDisconnected, cause: "store closed" }),
        "[DEVICE_DISCONNECTED] resolve: threadstore-sqlite (store closed)",
      ],
      [
        new DriverError({ op: "spawn", device: "claude", code: ErrCode.NotFound, cause: new Error("spawn claude ENOENT") }),
        "[NOT_FOUND] spawn: claude (spawn claude ENOENT)",
      ],
      [
        new DriverError({
          op: "session/load",
          device: "gemini",
          code: ErrCode.Driver,
          cause: new Error("raw"),
          detail: "Session not found",
        }),
        "[DRIVER] session/load: gemini (Session not found)",
      ],
      [
        new DriverError({
          op: "driver run",
          device: "mycli",
          code: ErrCode.Internal,
          cause: { code: 42 },
          detail: 'rejected with {"code":42}',
        }),
        '[INTERNAL] driver run: mycli (rejected with {"code":42})',
      ],
      [new DriverError({ op: "read", device: "stdout", code: ErrCode.BrokenPipe, cause: 7 }), "[BROKEN_PIPE] read: stdout (7)"],
      [new DriverError({ op: "read", device: "stdout", code: ErrCode.BrokenPipe, cause: "" }), "[BROKEN_PIPE] read: stdout ()"],
      [new DriverError({ op: "kill", device: "claude", code: ErrCode.ForceKilled }), "[FORCE_KILLED] kill: claude"],
    ];
    expect(cases.map(([err]) => err.message)).toEqual(cases.map(([, message]) => message));
  });
});
