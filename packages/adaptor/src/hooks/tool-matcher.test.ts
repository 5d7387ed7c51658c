import { describe, expect, it } from "vitest";
import { matcherProblem, matchesTool } from "./tool-matcher.js";

describe("tool matcher", () => {
  it("empty and * name every tool", () => {
    for (const matcher of ["", "*"]) {
      expect(matchesTool(matcher, "Bash")).toBe(true);
      expect(matchesTool(matcher, "mcp__adaptor__lookup")).toBe(true);
    }
  });

  it("names joined by | or , (spaces around them ignored) name exactly those tools", () => {
    expect(matchesTool("Write|Edit", "Edit")).toBe(true);
    expect(matchesTool("Write | Edit, Bash", "Bash")).toBe(true);
    expect(matchesTool("Write|Edit", "MultiEdit")).toBe(false);
    expect(matchesTool("Bash", "BashOutput")).toBe(false);
    expect(matchesTool("mcp__adaptor__lookup", "mcp__adaptor__lookup")).toBe(true);
  });

  it("anything else is a regular expression found anywhere in the name", () => {
    expect(matchesTool("^mcp__github__", "mcp__github__get_issue")).toBe(true);
    expect(matchesTool("^mcp__github__", "mcp__gitlab__get_issue")).toBe(false);
    expect(matchesTool("Edit$", "MultiEdit")).toBe(true);
    expect(matchesTool("mcp__.*__lookup", "mcp__adaptor__lookup")).toBe(true);
  });

  it("a matcher that is neither names nor a valid regular expression has a problem; valid ones have none", () => {
    expect(matcherProblem("mcp__(github")).toMatch(/not a valid regular expression/);
    expect(matcherProblem("[")).toBeDefined();
    for (const valid of ["", "*", "Bash", "Write|Edit", "Write, Edit", "^mcp__", "Bash(git.*)"])
      expect(matcherProblem(valid)).toBeUndefined();
  });
});
