import { describe, expect, it } from "vitest";
import { launchSignature, stableJson } from "./launch-signature.js";

describe("stableJson", () => {
  it("sorts keys, drops undefined members, keeps array order", () => {
    expect(stableJson({ b: 1, a: { d: [2, 1], c: undefined } })).toBe('{"a":{"d":[2,1]},"b":1}');
    expect(stableJson(undefined)).toBe("null");
  });
});

describe("launchSignature", () => {
  const base = { config: { model: "m", cwd: "/w", env: { SECRET: "x" } }, env: { A: "1" }, request: {} };
  it("equal spawn inputs hash equally whatever their key order; the config's env counts only through the merged env", () => {
    expect(launchSignature(base)).toBe(launchSignature({ ...base, config: { cwd: "/w", model: "m", env: { SECRET: "other" } } }));
    expect(launchSignature(base)).toMatch(/^[0-9a-f]{64}$/);
  });
  it("every spawn input changes it; the run's cwd and model override the config's", () => {
    const variants = [
      launchSignature({ ...base, env: { A: "2" } }),
      launchSignature({ ...base, request: { cwd: "/elsewhere" } }),
      launchSignature({ ...base, request: { model: "n" } }),
      launchSignature({ ...base, request: { policy: { sandbox: "read_only" } } }),
      launchSignature({ ...base, request: { outputSchema: { type: "object" } } }),
      launchSignature({ ...base, request: { mcpServers: [] } }),
      launchSignature({ ...base, request: { additionalDirectories: ["/shared"] } }),
      launchSignature({ ...base, extra: { command: "/bin/x" } }),
    ];
    expect(new Set([launchSignature(base), ...variants]).size).toBe(variants.length + 1);
    expect(launchSignature({ ...base, request: { model: "m", cwd: "/w" } })).toBe(launchSignature(base));
  });
});
