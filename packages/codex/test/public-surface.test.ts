import { describe, expect, it } from "vitest";
import * as codexModule from "../src/index.js";
import * as testing from "@adaptor/driver/testing";
import { hasBrand } from "@adaptor/errors";

// The public surfaces this package owns or adds, pinned so a change is seen in review (STYLE.md).

describe("public surface", () => {
  it("@adaptor/codex exports", () => {
    expect(Object.keys(codexModule).sort()).toEqual([
      "CODEX_DESCRIPTOR",
      "CODEX_EXEC_DESCRIPTOR",
      "CODEX_INHERITED_ENV",
      "CodexDriver",
      "CodexRpcError",
      "MIN_CODEX_VERSION",
      "OWNED_CONFIG_KEYS",
      "OWNED_FLAGS",
      "PINNED_CODEX_VERSION",
      "codex",
      "defaultCodexCommand",
      "stripOptionalNulls",
      "toStrictOutputSchema",
      "validateCodexConfig",
    ]);
  });

  it("@adaptor/driver/testing exports", () => {
    expect(Object.keys(testing).sort()).toEqual([
      "REFERENCE_DESCRIPTOR",
      "REFERENCE_SCRIPTS",
      "ReferenceDriver",
      "createRecordingSink",
      "describeDriverConformance",
      "describeVersionFloor",
      "runDriver",
    ]);
  });

  it("CodexRpcError is branded, so identity survives duplicate package copies", () => {
    const err = new codexModule.CodexRpcError("thread/resume", { code: -32600, message: "no rollout found" });
    expect(hasBrand(err, codexModule.CodexRpcError.brand)).toBe(true);
    expect(err.message).toBe("codex thread/resume: no rollout found (JSON-RPC -32600)");
  });

  it("descriptors are frozen and the pinned version is the installed one", async () => {
    expect(Object.isFrozen(codexModule.CODEX_DESCRIPTOR.capabilities.policy.sandbox)).toBe(true);
    const { createRequire } = await import("node:module");
    const pkg = createRequire(import.meta.url)("@openai/codex/package.json") as { version: string };
    expect(pkg.version).toBe(codexModule.PINNED_CODEX_VERSION);
    expect(codexModule.defaultCodexCommand()).toMatch(/vendor\/[^/]+\/bin\/codex$/);
  });
});
