// A tool hook matcher that names a host tool under an MCP server name the run does not have would
// never match a call: refused before launch, whether it is a list of names or a regular expression.
import { describe, expect, it } from "vitest";
import { InvalidOptionError } from "@adaptor/errors";
import { checkHostToolMatchers } from "../src/hooks/host-tool-matchers.js";

const hook = () => undefined;

/** The error checking `matcher` against host tool `refund` (served by `adaptor`) gives, if any. */
function check(matcher: string, servers: readonly string[] = []): unknown {
  try {
    checkHostToolMatchers(
      {
        beforeToolCall: [
          { matcher: "Bash", hook },
          { matcher, hook },
        ],
      },
      new Set(["refund"]),
      "adaptor",
      new Set(servers),
    );
    return undefined;
  } catch (error) {
    return error;
  }
}

describe("tool hook matchers naming a host tool under an unknown MCP server", () => {
  it.each(["mcp__shop__refund", "Bash|mcp__shop__refund", "mcp__shop__refund.*", "^mcp__shop__refund$", "(mcp__shop__refund)"])(
    "%s is refused, naming mcp__adaptor__refund",
    (matcher) => {
      const error = check(matcher);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(error).toMatchObject({ field: "hooks.beforeToolCall[1].matcher" });
      expect((error as Error).message).toContain('names mcp__shop__refund, but "refund" is a host tool');
      expect((error as Error).message).toContain('name it "mcp__adaptor__refund"');
    },
  );

  it("a server name holding __ is refused whole (mcp__my__shop__refund names server my__shop)", () => {
    const error = check("^mcp__my__shop__refund$");
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toContain('"my__shop" is none of its MCP servers');
  });

  it("a declared server holding __ makes the matcher its tool's: accepted", () => {
    expect(check("^mcp__my__shop__refund$", ["my__shop"])).toBeUndefined();
    expect(check("mcp__my__shop__refund", ["my__shop"])).toBeUndefined();
  });

  it.each([
    "mcp__adaptor__refund",
    "^mcp__adaptor__refund$",
    "mcp__shop__refund_all",
    "mcp__shop__other.*",
    "^mcp__shop__",
    "mcp__.*__refund",
  ])("%s is accepted (the host tool's own name, another tool, or no tool named)", (matcher) => {
    expect(check(matcher)).toBeUndefined();
  });

  it("a declared server of that name makes a regular expression its tool's: accepted", () => {
    expect(check("^mcp__shop__refund$", ["shop"])).toBeUndefined();
  });
});
