import { describe, expect, it } from "vitest";
import { findError, InvalidOptionError, isError } from "@adaptor/errors";
import { ErrInvalidDriverConfig, InvalidDriverConfigError } from "@adaptor/driver";
import { CodexDriver } from "./codex-driver.js";
import { configOverrideArgs, validateCodexConfig, type CodexConfig } from "./config.js";

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

  it.each([[["--yolo"]], [["--yolo=true"]], [["--dangerously-bypass-approvals-and-sandbox"]]])(
    "refuses %j in extraArgs (--yolo is codex's alias of --dangerously-bypass-approvals-and-sandbox)",
    (extraArgs) => {
      expect(refusal({ extraArgs })).toContain("the driver owns it");
    },
  );

  it("accepts an array of strings as a configOverrides value and passes it as a TOML array", () => {
    const overrides = { "sandbox_workspace_write.writable_roots": ["/data", 'a"b'] };
    expect(refusal({ configOverrides: overrides })).toBeUndefined();
    expect(configOverrideArgs(overrides)).toEqual(["-c", 'sandbox_workspace_write.writable_roots=["/data","a\\"b"]']);
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

  it("refuses additionalDirectories, a Codex SDK thread option, saying it is a run option here", () => {
    expect(refusal({ additionalDirectories: ["/x"] } as CodexConfig)).toContain(
      "additionalDirectories is not a known option; it is a run option here (agent.run(prompt, { additionalDirectories }))",
    );
  });

  it("refuses maxConcurrentSpawns 0 at validation, not with a constructor crash", () => {
    expect(refusal({ maxConcurrentSpawns: 0 })).toContain("maxConcurrentSpawns");
  });
});

describe("validateCodexConfig: the Codex SDK's names", () => {
  it.each([
    ["codexPathOverride", "the CLI's path is the driver option command here (codex({ command }))"],
    ["networkAccessEnabled", 'network access is codex({ configOverrides: { "sandbox_workspace_write.network_access": true } })'],
    [
      "baseUrl",
      "the base URL is configOverrides: { openai_base_url } here (or CODEX_HOME's config.toml); codex ignores an OPENAI_BASE_URL variable",
    ],
  ])("%s is refused with what to write here", (key, hint) => {
    let refused: unknown;
    try {
      validateCodexConfig({ [key]: "x" } as CodexConfig);
    } catch (error) {
      refused = error;
    }
    expect(isError(refused, ErrInvalidDriverConfig)).toBe(true);
    expect((refused as Error).message).toContain(`${key} is not a known option; ${hint}`);
  });
});

describe("validateCodexConfig: options", () => {
  function option(config: unknown): InvalidOptionError {
    let caught: unknown;
    try {
      validateCodexConfig(config as Parameters<typeof validateCodexConfig>[0]);
    } catch (error) {
      caught = error;
    }
    expect(isError(caught, ErrInvalidDriverConfig)).toBe(true);
    const found = findError(caught, InvalidOptionError);
    if (!found) throw new Error(`not refused with an InvalidOptionError: ${String(caught)}`);
    expect(found.subject).toBe("codex config");
    return found;
  }

  it.each([
    ["comand", "command"],
    ["modle", "model"],
    ["trasport", "transport"],
    ["codexHom", "codexHome"],
    ["handBackSettleM", "handBackSettleMs"],
  ])("refuses the misspelt key %s, suggesting %s", (typo, known) => {
    expect(option({ [typo]: "x" })).toMatchObject({ field: typo, suggestion: known });
  });

  it.each([
    [{ model: "" }, "model"],
    [{ model: 123 }, "model"],
    [{ env: "str" }, "env"],
    [{ transport: "grpc" }, "transport"],
    [{ extraArgs: "abc" }, "extraArgs"],
    [{ configOverrides: { "a.b": null } }, "configOverrides.a.b"],
    [{ configOverrides: { model: "x" } }, "configOverrides.model"],
    [{ idleMs: 1e12 }, "idleMs"],
    [{ killGraceMs: Infinity }, "killGraceMs"],
    [{ handBackSettleMs: -1 }, "handBackSettleMs"],
    [{ handBackSettleMs: "1000" }, "handBackSettleMs"],
    [{ maxModelRetries: -1 }, "maxModelRetries"],
    [{ maxModelRetries: 1.5 }, "maxModelRetries"],
    [{ clientName: "" }, "clientName"],
    [{ cwd: "/tmp/\uDC00" }, "cwd"],
  ])("refuses the bad value %j naming %s", (config, field) => {
    expect(option(config).field).toBe(field);
  });

  it("keeps a refused config out of the driver (a string extraArgs is never spread into argv)", () => {
    const driver = new CodexDriver({ extraArgs: "abc" } as unknown as CodexConfig);
    expect(driver.config.extraArgs).toBeUndefined();
    expect(() => driver.validateConfig()).toThrow(InvalidDriverConfigError);
  });
});
