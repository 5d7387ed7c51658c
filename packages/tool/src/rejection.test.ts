import { describe, expect, it } from "vitest";
import { asRejection, reject } from "./rejection.js";

describe("reject / asRejection", () => {
  it("mints a rejection that asRejection finds, also through cause and AggregateError wrapping", () => {
    const rejection = reject("not_found", "no such order");
    expect(rejection).toBeInstanceOf(Error);
    expect(rejection).toMatchObject({ code: "not_found", message: "no such order" });
    expect(asRejection(rejection)).toBe(rejection);
    expect(asRejection(new Error("wrapped", { cause: rejection }))).toBe(rejection);
    expect(asRejection(new AggregateError([new Error("x"), new Error("y", { cause: rejection })]))).toBe(rejection);
  });

  it("forged rejection-lookalike: an object or class with the same shape is not recognised", () => {
    const real = reject("not_found", "no such order");
    class ToolRejection extends Error {
      readonly code = "not_found";
    }
    const lookalikes: unknown[] = [
      { code: "not_found", message: "no such order", name: "ToolRejection" },
      new ToolRejection("no such order"),
      Object.assign(new Error("no such order"), { code: "not_found" }),
      Object.create(real as object) as unknown,
      { ...real, code: real.code, message: real.message },
    ];
    for (const forged of lookalikes) expect(asRejection(forged)).toBeUndefined();
    expect(asRejection(undefined)).toBeUndefined();
    expect(asRejection("not_found: no such order")).toBeUndefined();
  });

  it("refuses a malformed code (a programmer error)", () => {
    expect(() => reject("Not Found", "x")).toThrow(TypeError);
    expect(() => reject("", "x")).toThrow(TypeError);
    expect(() => reject("ok", 42 as unknown as string)).toThrow(TypeError);
  });
});
