import { describe, expect, it } from "vitest";
import { versionOfUserAgent } from "./user-agent-version.js";

describe("versionOfUserAgent", () => {
  it("reads the version after the client name, as codex 0.124.0 through 0.171.0 answer initialize", () => {
    expect(versionOfUserAgent("adaptor/0.171.0 (Debian 12.0.0; x86_64) xterm (adaptor; 0.1.0)", "adaptor")).toBe("0.171.0");
    expect(versionOfUserAgent("my app/0.124.0 (Debian 12.0.0; x86_64) xterm (my app; 0.1.0)", "my app")).toBe("0.124.0");
    expect(versionOfUserAgent("host/0.172.0-alpha.2 (Mac OS 15.1.0; arm64)", "host")).toBe("0.172.0-alpha.2");
  });

  it("falls back to the first /version for a client name codex rewrote, and gives undefined for none", () => {
    expect(versionOfUserAgent("my_app/0.169.1 (Debian 12.0.0; x86_64) xterm (my app; 0.1.0)", "my app")).toBe("0.169.1");
    expect(versionOfUserAgent("fake", "adaptor")).toBeUndefined();
    expect(versionOfUserAgent(undefined, "adaptor")).toBeUndefined();
  });
});
