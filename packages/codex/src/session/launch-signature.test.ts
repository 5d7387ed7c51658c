import { describe, expect, it } from "vitest";
import type { DriverRequest } from "@adaptor/driver";
import type { CodexConfig } from "../config.js";
import { launchSignature } from "./launch-signature.js";

const config: CodexConfig = { cwd: "/w", env: { A: "1", B: "2" }, inheritEnv: false, model: "gpt-5.5" };
const request: DriverRequest = { runId: "r1", prompt: "hi", session: { resumeId: "t1" }, reuseProcess: true };

describe("launchSignature", () => {
  it("ignores the prompt, run id, session and key order; equal spawn inputs hash equally", () => {
    const base = launchSignature("codex", config, request);
    expect(launchSignature("codex", { ...config, env: { B: "2", A: "1" } }, { ...request, runId: "r2", prompt: "other", session: { resumeId: "t2" } })).toBe(base);
  });

  it("every spawn input changes it: command, config, env, cwd, model, policy, MCP servers, output schema", () => {
    const base = launchSignature("codex", config, request);
    const variants = [
      launchSignature("/other/codex", config, request),
      launchSignature("codex", { ...config, configOverrides: { "features.x": true } }, request),
      launchSignature("codex", { ...config, env: { ...config.env, A: "9" } }, request),
      launchSignature("codex", config, { ...request, env: { MARK: "x" } }),
      launchSignature("codex", config, { ...request, cwd: "/elsewhere" }),
      launchSignature("codex", config, { ...request, model: "gpt-5.6" }),
      launchSignature("codex", config, { ...request, policy: { sandbox: "read_only" } }),
      launchSignature("codex", config, { ...request, mcpServers: [{ name: "m", transport: "stdio", command: "x" } as never] }),
      launchSignature("codex", config, { ...request, outputSchema: { type: "object" } }),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });
});
