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

  it("refuses maxConcurrentSpawns 0 at validation, not with a constructor crash", () => {
    expect(refusal({ maxConcurrentSpawns: 0 })).toContain("maxConcurrentSpawns");
  });
});
