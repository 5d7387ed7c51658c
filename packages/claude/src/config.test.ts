import { describe, expect, it } from "vitest";
import { findError, InvalidOptionError, isError, MalformedStringError } from "@adaptor/errors";
import { ErrInvalidDriverConfig, InvalidDriverConfigError } from "@adaptor/driver";
import { validateClaudeConfig, type ClaudeConfig } from "./config.js";
import { ClaudeDriver } from "./claude-driver.js";

/** The refusal of `config`, checked to be an InvalidDriverConfigError caused by an InvalidOptionError. */
function refusal(config: unknown): InvalidOptionError {
  let caught: unknown;
  try {
    validateClaudeConfig(config as ClaudeConfig);
  } catch (error) {
    caught = error;
  }
  expect(findError(caught, InvalidDriverConfigError)?.driver).toBe("claude");
  expect(isError(caught, ErrInvalidDriverConfig)).toBe(true);
  const option = findError(caught, InvalidOptionError);
  if (!option) throw new Error(`not refused with an InvalidOptionError: ${String(caught)}`);
  expect(option.subject).toBe("claude config");
  return option;
}

describe("validateClaudeConfig", () => {
  it.each([
    ["comand", "command"],
    ["modle", "model"],
    ["idleMS", "idleMs"],
    ["extraArg", "extraArgs"],
  ])("refuses the misspelt key %s, suggesting %s", (typo, known) => {
    const option = refusal({ [typo]: "x" });
    expect(option.field).toBe(typo);
    expect(option.suggestion).toBe(known);
  });

  it("says 'did you mean' in the driver error's message", () => {
    let message = "";
    try {
      validateClaudeConfig({ comand: "claude" } as ClaudeConfig);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('claude: invalid driver config: comand is not a known option; did you mean "command"?');
  });

  it("names what to write for the Claude Agent SDK's options (settingSources, pathToClaudeCodeExecutable, stderr, strictMcpConfig)", () => {
    const message = (config: object): string => {
      try {
        validateClaudeConfig(config as ClaudeConfig);
      } catch (error) {
        return (error as Error).message;
      }
      return "";
    };
    expect(message({ settingSources: [] })).toContain(
      "settingSources is not a known option; which settings the CLI loads is a driver option here: settingSources: [] is claude({ userSettings: false })",
    );
    expect(message({ pathToClaudeCodeExecutable: "/x" })).toContain(
      "pathToClaudeCodeExecutable is not a known option; the CLI's path is the driver option command here (claude({ command }))",
    );
    expect(message({ stderr: () => undefined })).toContain("stderr is not a known option; the CLI's stderr is in process events");
    expect(message({ strictMcpConfig: true })).toContain("strictMcpConfig is not a known option; only the run's mcpServers reach the CLI");
    // The peer's query() options that are run options here say so.
    expect(message({ allowedTools: ["Read"] })).toContain(
      "allowedTools is not a known option; it is a run option here (agent.run(prompt, { allowedTools }))",
    );
    // Another SDK's names are not answered with the Claude Agent SDK's hints.
    expect(message({ codexPathOverride: "/x" })).toBe("claude: invalid driver config: codexPathOverride is not a known option");
  });

  it.each([
    [{ model: "" }, "model"],
    [{ command: "  " }, "command"],
    [{ model: 123 }, "model"],
    [{ env: "str" }, "env"],
    [{ env: { HOME: 5 } }, "env.HOME"],
    [{ inheritEnv: "yes" }, "inheritEnv"],
    [{ extraArgs: "abc" }, "extraArgs"],
    [{ extraArgs: ["--debug", 1] }, "extraArgs[1]"],
    [{ killGraceMs: -1 }, "killGraceMs"],
    [{ idleMs: 1e12 }, "idleMs"],
    [{ idleMs: NaN }, "idleMs"],
    [{ maxLineBytes: 0 }, "maxLineBytes"],
    [{ maxConcurrentSpawns: 2.5 }, "maxConcurrentSpawns"],
    [{ extraArgs: ["--output-format=json"] }, "extraArgs[0]"],
  ])("refuses the bad value %j naming %s", (config, field) => {
    expect(refusal(config).field).toBe(field);
  });

  it("refuses a non-object or null config and accepts undefined as none", () => {
    expect(refusal("abc").message).toBe('claude config: must be an object, got string "abc"');
    expect(refusal(null).message).toBe("claude config: must be an object, got null");
    expect(validateClaudeConfig(undefined)).toEqual({});
  });

  it("refuses a model or env value with a lone surrogate or NUL before any process", () => {
    expect(refusal({ model: "sonnet\uD800" })).toBeInstanceOf(MalformedStringError);
    expect(refusal({ env: { TOKEN: "a\0b" } })).toMatchObject({ field: "env.TOKEN", kind: "nul" });
  });

  it("returns a frozen copy with extraArgs copied", () => {
    const extraArgs = ["--debug"];
    const checked = validateClaudeConfig({ extraArgs, idleMs: 2 ** 31 - 1 });
    extraArgs.push("--later");
    expect(checked.extraArgs).toEqual(["--debug"]);
    expect(Object.isFrozen(checked)).toBe(true);
  });
});

describe("ClaudeDriver with a refused config", () => {
  it("never spreads a string extraArgs into argv: the driver keeps the refusal for validateConfig()", () => {
    const driver = new ClaudeDriver({ extraArgs: "abc" } as unknown as ClaudeConfig);
    expect(driver.config.extraArgs).toBeUndefined();
    expect(() => driver.validateConfig()).toThrow(InvalidDriverConfigError);
  });

  it("does not crash on a null config and keeps idleMs 1e12 out of its pool", () => {
    expect(() => new ClaudeDriver(null as unknown as ClaudeConfig).validateConfig()).toThrow(/must be an object, got null/);
    const driver = new ClaudeDriver({ idleMs: 1e12 });
    expect(driver.config.idleMs).toBeUndefined();
    expect(() => driver.validateConfig()).toThrow(/idleMs must be a number of ms in \[0, 2147483647\], got number 1000000000000/);
  });
});
