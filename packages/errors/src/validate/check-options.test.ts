import { describe, expect, it } from "vitest";
import { isError } from "../match.js";
import { checkOptions, type OptionShape } from "./check-options.js";
import { ErrInvalidOption, InvalidOptionError } from "./invalid-option-error.js";
import { MAX_TIMER_MS, optionChecks as is } from "./option-checks.js";
import { MalformedStringError, findStringFlaw } from "./well-formed.js";

const shape: OptionShape = {
  model: is.string({ nonEmpty: true }),
  command: is.string({ nonEmpty: true }),
  onApproval: is.func(),
  timeoutMs: is.timerMs({ allowInfinity: true }),
  idleMs: is.timerMs(),
  env: is.env(),
  extraArgs: is.arrayOf(is.string(), "an array of strings"),
  count: is.integer(1),
  approvals: is.shape({ timeoutMs: is.timerMs() }),
};

function refusal(value: unknown, settings: Parameters<typeof checkOptions>[3] = {}): InvalidOptionError {
  try {
    checkOptions("test options", value, shape, settings);
  } catch (error) {
    if (error instanceof InvalidOptionError) return error;
    throw error;
  }
  throw new Error("accepted");
}

describe("checkOptions: unknown keys", () => {
  it.each([
    ["modle", "model"],
    ["comand", "command"],
    ["onAproval", "onApproval"],
    ["timeoutMS", "timeoutMs"],
  ])("refuses the misspelt key %s and suggests %s", (typo, known) => {
    const error = refusal({ [typo]: 1 });
    expect(error.field).toBe(typo);
    expect(error.suggestion).toBe(known);
    expect(error.message).toBe(`test options: ${typo} is not a known option; did you mean "${known}"?`);
    expect(isError(error, ErrInvalidOption)).toBe(true);
  });

  it("refuses an unknown key that resembles nothing, without a suggestion", () => {
    const error = refusal({ frobnicate: true });
    expect(error.suggestion).toBeUndefined();
    expect(error.message).toBe("test options: frobnicate is not a known option");
  });

  it("says where a key belongs instead of guessing a spelling", () => {
    const error = refusal({ threadStore: {} }, { elsewhere: { threadStore: "an Agent option" } });
    expect(error.message).toBe("test options: threadStore is not a known option; it is an Agent option");
  });

  it("a key that belongs elsewhere and has a peer library's name gets both hints", () => {
    const error = refusal(
      { tools: ["Read"] },
      { elsewhere: { tools: "an Agent option" }, hints: { tools: "built-ins are chosen by policy here" } },
    );
    expect(error.message).toBe("test options: tools is not a known option; it is an Agent option; built-ins are chosen by policy here");
  });

  it("gives another library's name for an option its hint instead of a spelling guess", () => {
    const error = refusal({ maxTurn: 1 }, { hints: { maxTurn: "it is budget.maxTurns here" } });
    expect(error.suggestion).toBeUndefined();
    expect(error.message).toBe("test options: maxTurn is not a known option; it is budget.maxTurns here");
  });

  it("names the nested path of an unknown key in a nested object", () => {
    expect(refusal({ approvals: { timeoutMS: 5 } }).field).toBe("approvals.timeoutMS");
  });
});

describe("checkOptions: values", () => {
  it("refuses null and non-objects as the whole options value", () => {
    expect(refusal(null).message).toBe("test options: must be an object, got null");
    expect(refusal("abc").message).toBe('test options: must be an object, got string "abc"');
    expect(checkOptions("test options", null, shape, { allowNull: true })).toEqual({});
    expect(checkOptions("test options", undefined, shape)).toEqual({});
  });

  it.each([
    [{ model: "" }, "model", 'must be a non-empty string, got string ""'],
    [{ model: 123 }, "model", "must be a non-empty string, got number 123"],
    [{ env: "str" }, "env", 'must be an object, got string "str"'],
    [{ env: { A: 1 } }, "env.A", "must be a string, got number 1"],
    [{ env: { "A=B": "x" } }, 'env key "A=B"', 'must not contain "="'],
    [{ extraArgs: "abc" }, "extraArgs", 'must be an array of strings, got string "abc"'],
    [{ extraArgs: ["--a", 5] }, "extraArgs[1]", "must be a string, got number 5"],
    [{ onApproval: true }, "onApproval", "must be a function, got boolean true"],
    [{ count: 0 }, "count", "must be a positive integer, got number 0"],
    [{ count: 1.5 }, "count", "must be a positive integer, got number 1.5"],
    [{ idleMs: NaN }, "idleMs", `must be a number of ms in [0, ${MAX_TIMER_MS}], got number NaN`],
    [
      { idleMs: Infinity },
      "idleMs",
      `must be a number of ms in [0, ${MAX_TIMER_MS}], got number Infinity (longer than a Node timer can wait)`,
    ],
    [{ idleMs: -1 }, "idleMs", `must be a number of ms in [0, ${MAX_TIMER_MS}], got number -1`],
    [{ approvals: { timeoutMs: "10" } }, "approvals.timeoutMs", `must be a number of ms in [0, ${MAX_TIMER_MS}], got string "10"`],
  ])("refuses %j naming %s", (value, field, reason) => {
    const error = refusal(value);
    expect(error.field).toBe(field);
    expect(error.reason).toBe(reason);
  });

  it("refuses a timer longer than Node allows instead of letting Node clamp it to 1 ms", () => {
    const error = refusal({ idleMs: 1e12 });
    expect(error.reason).toContain("longer than a Node timer can wait");
    expect(checkOptions("t", { idleMs: MAX_TIMER_MS, timeoutMs: Infinity }, shape)).toEqual({ idleMs: MAX_TIMER_MS, timeoutMs: Infinity });
  });

  it("wraps a throwing getter as a refusal of that field, keeping the thrown error as cause", () => {
    const boom = new Error("getter boom");
    const error = refusal({
      get model(): string {
        throw boom;
      },
    });
    expect(error.field).toBe("model");
    expect(error.cause).toBe(boom);
  });

  it("returns a frozen snapshot that reads each getter once", () => {
    let reads = 0;
    const snapshot = checkOptions<{ model?: string }>(
      "t",
      {
        get model(): string {
          reads += 1;
          return `m${reads}`;
        },
      },
      shape,
    );
    expect(snapshot.model).toBe("m1");
    expect(snapshot.model).toBe("m1");
    expect(reads).toBe(1);
    expect(Object.isFrozen(snapshot)).toBe(true);
  });
});

describe("strings a CLI cannot carry", () => {
  it("finds a lone high surrogate, a lone low surrogate and a NUL, and accepts a surrogate pair", () => {
    expect(findStringFlaw("tenant\uD800")).toEqual({ kind: "lone-surrogate", index: 6, codeUnit: 0xd800 });
    expect(findStringFlaw("a\uDC00b")).toEqual({ kind: "lone-surrogate", index: 1, codeUnit: 0xdc00 });
    expect(findStringFlaw("a\0b")).toEqual({ kind: "nul", index: 1, codeUnit: 0 });
    expect(findStringFlaw("a\0b", { allowNul: true })).toBeUndefined();
    expect(findStringFlaw("emoji \uD83D\uDE00 ok")).toBeUndefined();
  });

  it("refuses a lone surrogate in an option with a MalformedStringError naming the field and index", () => {
    const error = refusal({ model: "claude\uD83D" });
    expect(error).toBeInstanceOf(MalformedStringError);
    expect(error.message).toBe("test options: model holds a lone UTF-16 surrogate (U+D83D) at index 6, which a CLI cannot carry");
    expect((error as MalformedStringError).index).toBe(6);
    expect(refusal({ env: { PATH: "/bin\0" } })).toMatchObject({ field: "env.PATH", kind: "nul" });
  });
});
