import { describe, expect, it } from "vitest";
import { findError, InvalidOptionError, optionChecks } from "@adaptor/errors";
import { InvalidDriverConfigError } from "../../errors/invalid-driver-config-error.js";
import { captureConfig } from "./capture-config.js";
import { spawnLimits, validateDriverConfig, type CommonDriverConfig } from "./common-config.js";

interface MyConfig extends CommonDriverConfig {
  readonly flavour?: string;
}

const rules = {
  shape: { flavour: optionChecks.string({ nonEmpty: true }) },
  ownedFlags: ["--json"],
  checkArg: (arg: string) => (arg === "-x" ? "may not be -x" : undefined),
};

function refusal(config: unknown): InvalidOptionError {
  try {
    validateDriverConfig("mine", config as MyConfig, rules);
  } catch (error) {
    expect(findError(error, InvalidDriverConfigError)?.driver).toBe("mine");
    const option = findError(error, InvalidOptionError);
    if (option) return option;
  }
  throw new Error("not refused");
}

describe("validateDriverConfig", () => {
  it("checks the common fields the same way for every driver, plus the driver's own", () => {
    expect(refusal({ idleMs: -1 }).field).toBe("idleMs");
    expect(refusal({ maxConcurrentSpawns: 0 }).field).toBe("maxConcurrentSpawns");
    expect(refusal({ maxRawBytes: 1.5 }).field).toBe("maxRawBytes");
    expect(refusal({ inheritEnv: "PATH" }).field).toBe("inheritEnv");
    expect(refusal({ killGraceMs: 2 ** 31 }).field).toBe("killGraceMs");
    expect(refusal({ cwd: "" }).field).toBe("cwd");
    expect(refusal({ flavour: "" }).field).toBe("flavour");
    expect(refusal({ flavor: "x" }).suggestion).toBe("flavour");
  });

  it("refuses owned flags (also as --flag=value) and what checkArg refuses, naming the entry", () => {
    expect(refusal({ extraArgs: ["--ok", "--json=1"] })).toMatchObject({
      field: "extraArgs[1]",
      reason: 'may not set "--json=1": the driver owns it',
    });
    expect(refusal({ extraArgs: ["-x"] })).toMatchObject({ field: "extraArgs[0]", reason: "may not be -x" });
  });

  it("returns a deeply frozen copy and never freezes the caller's objects", () => {
    const env = { A: "1" };
    const extraArgs = ["--ok"];
    const checked = validateDriverConfig<MyConfig>("mine", { env, extraArgs, inheritEnv: ["PATH"] }, rules);
    expect(checked).toEqual({ env: { A: "1" }, extraArgs: ["--ok"], inheritEnv: ["PATH"] });
    expect(
      Object.isFrozen(checked) && Object.isFrozen(checked.env) && Object.isFrozen(checked.extraArgs) && Object.isFrozen(checked.inheritEnv),
    ).toBe(true);
    expect(Object.isFrozen(env) || Object.isFrozen(extraArgs)).toBe(false);
  });

  it("spawnLimits passes only the limits that were set", () => {
    expect(spawnLimits({})).toEqual({});
    expect(spawnLimits({ killGraceMs: 5, maxLineBytes: 10, maxRawBytes: 20, idleMs: 1 })).toEqual({
      killGraceMs: 5,
      maxLineBytes: 10,
      maxRawBytes: 20,
    });
  });
});

describe("captureConfig", () => {
  it("never throws at capture; validate() rethrows the refusal, or checks the captured config again", () => {
    const validate = (c: MyConfig | undefined) => validateDriverConfig("mine", c, rules);
    const bad = captureConfig(validate, { idleMs: -5 });
    expect(bad.config).toEqual({});
    expect(() => bad.validate()).toThrow(InvalidDriverConfigError);
    const good = captureConfig(validate, { model: "m" });
    expect(good.config).toEqual({ model: "m" });
    expect(() => good.validate()).not.toThrow();
  });
});
