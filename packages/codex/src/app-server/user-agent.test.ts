import { describe, expect, it } from "vitest";
import { userAgentVersion } from "./user-agent.js";

describe("userAgentVersion", () => {
  it("reads codex's version after the originator, not the client's version at the end", () => {
    expect(userAgentVersion("adaptor/0.171.0 (Debian 12.0.0; x86_64) xterm (adaptor; 0.1.0)", "adaptor")).toBe("0.171.0");
    expect(userAgentVersion("my app/0.170.0 (Debian 12.0.0; x86_64) xterm (my app; 0.1.0)", "my app")).toBe("0.170.0");
    expect(userAgentVersion("org/app/0.166.0 (Debian 12.0.0; x86_64) xterm (org/app; 9.9.9)", "org/app")).toBe("0.166.0");
    // Another originator than the name sent: the first `/` a version follows.
    expect(userAgentVersion("codex_cli_rs/0.169.1-alpha.2 (Mac OS 15.1.0; arm64) (adaptor; 0.1.0)", "adaptor")).toBe("0.169.1-alpha.2");
  });

  it("is undefined when the answer names no version there", () => {
    expect(userAgentVersion(undefined, "adaptor")).toBeUndefined();
    expect(userAgentVersion("adaptor (fake)", "adaptor")).toBeUndefined();
    expect(userAgentVersion("adaptor/dev (Debian 12.0.0; x86_64) xterm (adaptor; 0.1.0)", "adaptor")).toBeUndefined();
  });
});
