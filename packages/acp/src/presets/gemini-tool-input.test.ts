import { describe, expect, it } from "vitest";
import { geminiToolInput } from "./gemini.js";

const shell = (title: string, text?: string) => ({
  toolCallId: "run_shell_command__1",
  title,
  ...(text !== undefined ? { content: [{ type: "content" as const, content: { type: "text" as const, text } }] } : {}),
});

describe("geminiToolInput: gemini-cli 0.61.0's shell call read from its title and text", () => {
  it("the title is the command; the working directory comes from the text, the description left out", () => {
    expect(geminiToolInput(shell("npm test", "[current working directory /w] (runs the tests)"), "run_shell_command")).toEqual({
      command: "npm test",
      cwd: "/w",
    });
  });

  it("a dir_path is kept, so an allow remembered elsewhere does not match; a background call's text is kept whole", () => {
    expect(geminiToolInput(shell("npm test", "[in /w/sub] (tests)"), "run_shell_command")).toEqual({
      command: "npm test",
      dir_path: "/w/sub",
    });
    expect(geminiToolInput(shell("npm test", "[in /w/sub] (tests) [background]"), "run_shell_command")).toEqual({
      command: "npm test",
      details: "[in /w/sub] (tests) [background]",
    });
  });

  it("a text it cannot read is kept whole as details; no text gives the command alone", () => {
    expect(geminiToolInput(shell("ls", "something else"), "run_shell_command")).toEqual({ command: "ls", details: "something else" });
    expect(geminiToolInput(shell("ls"), "run_shell_command")).toEqual({ command: "ls" });
  });

  it("another tool, or a call without a title, gives nothing", () => {
    expect(geminiToolInput(shell("a.txt", "x"), "read_file")).toBeUndefined();
    expect(geminiToolInput(shell(""), "run_shell_command")).toBeUndefined();
  });

  it("a text a folder holding ']' could also give is kept whole as details, so an allow remembered in /w/sub does not match a call in '/w/sub] (x'", () => {
    // dir_path "/w/sub] (x" with the description "tests", and dir_path "/w/sub" with "x] (tests)", give the same text.
    expect(geminiToolInput(shell("npm test", "[in /w/sub] (x] (tests)"), "run_shell_command")).toEqual({
      command: "npm test",
      details: "[in /w/sub] (x] (tests)",
    });
    // dir_path "/w/sub] [background" in the foreground, or "/w/sub" in the background.
    expect(geminiToolInput(shell("npm test", "[in /w/sub] [background]"), "run_shell_command")).toEqual({
      command: "npm test",
      details: "[in /w/sub] [background]",
    });
  });
});
