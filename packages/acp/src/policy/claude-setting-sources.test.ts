import { describe, expect, it } from "vitest";
import { isClaudeCodeAdapter, userSettingsOnly } from "./claude-setting-sources.js";

describe("Claude Code ACP adapters under a confining policy", () => {
  it("are recognized by their agentInfo name (Zed's adapters and forks) or the _meta.claudeCode capability", () => {
    const named = (name: string) => isClaudeCodeAdapter({ protocolVersion: 1, agentInfo: { name, version: "1" } });
    expect(named("@zed-industries/claude-code-acp")).toBe(true);
    expect(named("@zed-industries/claude-agent-acp")).toBe(true);
    expect(named("@sudocode-ai/claude-code-acp")).toBe(true);
    expect(named("gemini-cli")).toBe(false);
    expect(isClaudeCodeAdapter({ protocolVersion: 1, agentCapabilities: { _meta: { claudeCode: { promptQueueing: true } } } })).toBe(true);
    expect(isClaudeCodeAdapter({ protocolVersion: 1 })).toBe(false);
  });

  it("get settingSources [user] added to the host's session _meta, keeping its other options", () => {
    expect(userSettingsOnly(undefined)).toEqual({ claudeCode: { options: { settingSources: ["user"] } } });
    expect(userSettingsOnly({ other: 1, claudeCode: { options: { model: "m" }, x: true } })).toEqual({
      other: 1,
      claudeCode: { options: { model: "m", settingSources: ["user"] }, x: true },
    });
  });

  it("keep the sources the host chose itself", () => {
    expect(userSettingsOnly({ claudeCode: { options: { settingSources: ["user", "project"] } } })).toBeUndefined();
  });
});
