import { describe, expect, it } from "vitest";
import { ErrInvalidOption, isError } from "@adaptor/errors";
import { checkCodexEffort } from "./effort.js";

describe("checkCodexEffort", () => {
  it("refuses a run's effort when configOverrides also sets model_reasoning_effort", () => {
    let refused: unknown;
    try {
      checkCodexEffort("low", { configOverrides: { model_reasoning_effort: "high" } });
    } catch (error) {
      refused = error;
    }
    expect(isError(refused, ErrInvalidOption)).toBe(true);
    expect(refused).toMatchObject({ subject: "run", field: "effort" });
    expect((refused as Error).message).toContain("model_reasoning_effort: set one of them");
  });

  it("accepts either one alone", () => {
    expect(() => checkCodexEffort("low", { configOverrides: { "sandbox_workspace_write.network_access": true } })).not.toThrow();
    expect(() => checkCodexEffort(undefined, { configOverrides: { model_reasoning_effort: "high" } })).not.toThrow();
    expect(() => checkCodexEffort("high", {})).not.toThrow();
  });
});
