import { describe, expect, it } from "vitest";
import type { DriverRequest } from "@adaptor/driver";
import type { CodexConfig } from "../config.js";
import { codexLaunchSignature } from "./launch-signature.js";

const config: CodexConfig = { cwd: "/w", env: { A: "1", B: "2" }, inheritEnv: false, model: "gpt-5.5" };
const request: DriverRequest = { runId: "r1", prompt: "hi", session: { resumeId: "t1" }, reuseProcess: true };

describe("codexLaunchSignature", () => {
  it("ignores the prompt, run id, session and key order; equal spawn inputs hash equally", () => {
    const base = codexLaunchSignature("codex", config, request);
    expect(
      codexLaunchSignature(
        "codex",
        { ...config, env: { B: "2", A: "1" } },
        { ...request, runId: "r2", prompt: "other", session: { resumeId: "t2" } },
      ),
    ).toBe(base);
  });

  it("every spawn input changes it: command, config, env, cwd, model, policy, MCP servers, output schema, additional directories", () => {
    const base = codexLaunchSignature("codex", config, request);
    const variants = [
      codexLaunchSignature("/other/codex", config, request),
      codexLaunchSignature("codex", { ...config, configOverrides: { "features.x": true } }, request),
      codexLaunchSignature("codex", { ...config, env: { ...config.env, A: "9" } }, request),
      codexLaunchSignature("codex", config, { ...request, env: { MARK: "x" } }),
      codexLaunchSignature("codex", config, { ...request, cwd: "/elsewhere" }),
      codexLaunchSignature("codex", config, { ...request, model: "gpt-5.6" }),
      codexLaunchSignature("codex", config, { ...request, policy: { sandbox: "read_only" } }),
      codexLaunchSignature("codex", config, { ...request, mcpServers: [{ name: "m", transport: "stdio", command: "x" } as never] }),
      codexLaunchSignature("codex", config, { ...request, outputSchema: { type: "object" } }),
      codexLaunchSignature("codex", config, { ...request, additionalDirectories: ["/data"] }),
      codexLaunchSignature("codex", config, { ...request, additionalDirectories: ["/other"] }),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });
});
