import { describe, expect, it } from "vitest";
import { findError } from "@adaptor/errors";
import { InvalidDriverConfigError } from "@adaptor/driver";
import { validateCodexConfig } from "./config.js";

function refusal(config: Parameters<typeof validateCodexConfig>[0]): string | undefined {
  try {
    validateCodexConfig(config);
    return undefined;
  } catch (error) {
    return findError(error, InvalidDriverConfigError)?.message;
  }
}

describe("validateCodexConfig", () => {
  it.each([
    [["-c", 'sandbox_mode="danger-full-access"'], "sandbox_mode"],
    [["--config", "approval_policy=never"], "approval_policy"],
    [["--config=web_search=live"], "web_search"],
    [["-capproval_policy=never"], "approval_policy"],
    [["-c", "sandbox_mode.extra=1"], "sandbox_mode.extra"],
  ])("refuses extraArgs %j that set the owned config key %s", (extraArgs, key) => {
    expect(refusal({ extraArgs })).toContain(`config key "${key}"`);
  });

  it("accepts config keys the driver does not own", () => {
    expect(refusal({ extraArgs: ["-c", "model_reasoning_effort=high"] })).toBeUndefined();
  });

  it("refuses a malformed inheritEnv (a string, a bad name) and a non-integer maxRawBytes, naming the field", () => {
    expect(refusal({ inheritEnv: "PATH" as never })).toContain("inheritEnv must be true, false or an array");
    expect(refusal({ inheritEnv: ["PATH", "A=B"] })).toContain('inheritEnv entry "A=B"');
    expect(refusal({ inheritEnv: ["PATH", "OPENAI_*"] })).toBeUndefined();
    expect(refusal({ maxRawBytes: 0 })).toContain("maxRawBytes must be a positive integer");
    expect(refusal({ maxRawBytes: 1.5 })).toContain("maxRawBytes");
  });

  it("refuses maxConcurrentSpawns 0 at validation, not with a constructor crash", () => {
    expect(refusal({ maxConcurrentSpawns: 0 })).toContain("maxConcurrentSpawns");
  });
});
