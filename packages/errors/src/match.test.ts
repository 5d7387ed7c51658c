import { describe, expect, it } from "vitest";
import { AdaptorError, findError, isError, sentinel, DriverError, ErrCode, errorCode } from "./index.js";

const ErrA = sentinel("test.A", "a");
const ErrB = sentinel("test.B", "b", { also: [ErrA] });

class ThingError extends AdaptorError {
  static override readonly brand: symbol = Symbol.for("adaptor.error.test.ThingError");
  static override readonly sentinel = ErrA;
}

describe("isError", () => {
  it("matches a sentinel carried by an error three causes deep", () => {
    const err = new Error("outer", { cause: new Error("mid", { cause: new AdaptorError("inner", { sentinel: ErrA }) }) });
    expect(isError(err, ErrA)).toBe(true);
    expect(isError(err, ErrB)).toBe(false);
  });
  it("matches inside AggregateError.errors", () => {
    const err = new AggregateError([new Error("x"), new AdaptorError("y", { sentinel: ErrB })]);
    expect(isError(err, ErrB)).toBe(true);
    expect(isError(err, ErrA)).toBe(true); // ErrB also matches ErrA
  });
  it("matches the bare sentinel and survives a cause cycle", () => {
    const a = new Error("a") as Error & { cause?: unknown };
    const b = new Error("b", { cause: a });
    a.cause = b;
    expect(isError(ErrA, ErrA)).toBe(true);
    expect(isError(a, ErrA)).toBe(false);
  });
  it("returns the same object for a sentinel id made twice", () => {
    expect(sentinel("test.A", "other text")).toBe(ErrA);
  });
});

describe("findError", () => {
  it("finds a typed error by brand and its class sentinel matches", () => {
    const inner = new ThingError("thing");
    const err = new Error("wrap", { cause: inner });
    expect(findError(err, ThingError)).toBe(inner);
    expect(isError(err, ErrA)).toBe(true);
    expect(findError(err, DriverError)).toBeUndefined();
    expect(inner).toBeInstanceOf(ThingError);
    expect(inner).toBeInstanceOf(AdaptorError);
    expect(inner.name).toBe("test.ThingError");
  });
});

describe("DriverError", () => {
  it("formats [CODE] op: device (cause)", () => {
    const err = new DriverError({ op: "spawn", device: "claude", code: ErrCode.NotFound, cause: "executable not found on PATH" });
    expect(err.message).toBe("[NOT_FOUND] spawn: claude (executable not found on PATH)");
    expect(errorCode(new Error("x", { cause: err }))).toBe("NOT_FOUND");
    expect(new DriverError({ op: "kill", device: "claude", code: ErrCode.ForceKilled }).message).toBe("[FORCE_KILLED] kill: claude");
  });
  it("has exactly the 13 codes of seed 000", () => {
    expect(Object.values(ErrCode).sort()).toEqual(
      [
        "TIMEOUT",
        "NOT_FOUND",
        "PERMISSION",
        "INTERNAL",
        "DRIVER",
        "INVALID",
        "IS_DIRECTORY",
        "BROKEN_PIPE",
        "SERVICE_UNAVAILABLE",
        "ALREADY_MOUNTED",
        "RESOURCE_EXHAUSTED",
        "FORCE_KILLED",
        "DEVICE_DISCONNECTED",
      ].sort(),
    );
  });
});
