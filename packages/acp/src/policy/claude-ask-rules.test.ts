import { describe, expect, it } from "vitest";
import { CLAUDE_ASKED_TOOLS, withAskRules } from "./claude-ask-rules.js";

const settingsOf = (meta: Readonly<Record<string, unknown>> | undefined): unknown => {
  const options = (meta?.["claudeCode"] as { options: { extraArgs: { settings: string } } }).options;
  return JSON.parse(options.extraArgs.settings);
};

describe("ask rules for a Claude Code ACP adapter's session", () => {
  it("are --settings permissions.ask for every built-in but the read ones, keeping the host's other options and extraArgs", () => {
    const meta = withAskRules({ other: 1, claudeCode: { x: true, options: { settingSources: ["user"], extraArgs: { debug: "" } } } });
    expect(meta).toMatchObject({ other: 1, claudeCode: { x: true, options: { settingSources: ["user"], extraArgs: { debug: "" } } } });
    expect(settingsOf(meta)).toEqual({ permissions: { ask: [...CLAUDE_ASKED_TOOLS] } });
    expect(CLAUDE_ASKED_TOOLS).toContain("Bash");
    for (const read of ["Read", "Glob", "Grep", "LS", "NotebookRead", "ToolSearch", "TodoWrite"])
      expect(CLAUDE_ASKED_TOOLS).not.toContain(read);
  });

  it("merge into the host's own settings (an object in options.settings, or JSON in extraArgs.settings), its ask rules first", () => {
    const own = { env: { A: "1" }, permissions: { ask: ["Read", "Bash"], deny: ["WebSearch"] } };
    for (const options of [{ settings: own }, { extraArgs: { settings: JSON.stringify(own) } }]) {
      const meta = withAskRules({ claudeCode: { options } });
      expect((meta?.["claudeCode"] as { options: Record<string, unknown> }).options["settings"]).toBeUndefined();
      expect(settingsOf(meta)).toEqual({
        env: { A: "1" },
        permissions: { deny: ["WebSearch"], ask: ["Read", "Bash", ...CLAUDE_ASKED_TOOLS.filter((tool) => tool !== "Bash")] },
      });
    }
  });

  it("cannot be merged into a settings file path: undefined", () => {
    expect(withAskRules({ claudeCode: { options: { settings: "/etc/claude/settings.json" } } })).toBeUndefined();
    expect(withAskRules({ claudeCode: { options: { extraArgs: { settings: "./settings.json" } } } })).toBeUndefined();
  });
});
