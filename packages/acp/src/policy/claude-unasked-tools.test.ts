import { describe, expect, it } from "vitest";
import { disallowedToolsOf, withoutUnaskedWritingTools } from "./claude-unasked-tools.js";

describe("a Claude Code adapter's session _meta under a confining policy", () => {
  it("gets the unasked writing tools in claudeCode.options.disallowedTools, after the host's own and keeping its other options", () => {
    expect(withoutUnaskedWritingTools(undefined)).toEqual({
      claudeCode: { options: { disallowedTools: ["CronCreate", "CronDelete", "EnterWorktree", "ExitWorktree"] } },
    });
    const meta = { other: 1, claudeCode: { x: true, options: { settingSources: ["user"], disallowedTools: ["WebFetch", "CronCreate"] } } };
    expect(withoutUnaskedWritingTools(meta)).toEqual({
      other: 1,
      claudeCode: {
        x: true,
        options: { settingSources: ["user"], disallowedTools: ["WebFetch", "CronCreate", "CronDelete", "EnterWorktree", "ExitWorktree"] },
      },
    });
  });

  it("names its disallowed tools (strings only; none without the option)", () => {
    expect(disallowedToolsOf({ claudeCode: { options: { disallowedTools: ["A", 3, "B"] } } })).toEqual(["A", "B"]);
    expect(disallowedToolsOf({ claudeCode: {} })).toEqual([]);
    expect(disallowedToolsOf(undefined)).toEqual([]);
  });
});
