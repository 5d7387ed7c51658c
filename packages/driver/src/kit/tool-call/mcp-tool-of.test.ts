import { describe, expect, it } from "vitest";
import { knownInput } from "./known-input.js";
import { mcpToolOf, type McpServerTools } from "./mcp-tool-of.js";

const servers: McpServerTools[] = [{ name: "adaptor", tools: ["lookup"] }];

describe("mcpToolOf: the MCP server's tool an agent's call names", () => {
  it("reads each agent's form: mcp__ and mcp_ names, a Tool: title, an input naming server and tool", () => {
    const lookup = { server: "adaptor", tool: "lookup" };
    expect(mcpToolOf({ name: "mcp__adaptor__lookup" }, servers)).toEqual(lookup);
    expect(mcpToolOf({ name: "mcp_adaptor_lookup" }, servers)).toEqual(lookup);
    expect(mcpToolOf({ title: "Tool: adaptor/lookup" }, servers)).toEqual(lookup);
    expect(mcpToolOf({ input: { server: "adaptor", tool: "lookup", arguments: {} } }, servers)).toEqual(lookup);
    expect(mcpToolOf({ input: { server_name: "adaptor", tool_name: "lookup" } }, servers)).toEqual(lookup);
    expect(mcpToolOf({ input: { server: "adaptor", tool_name: "lookup" } }, servers)).toEqual(lookup);
    expect(mcpToolOf({ name: "Read", title: "Tool: adaptor/lookup" }, servers)).toEqual(lookup);
    expect(mcpToolOf({ name: "mcp_adaptor_lookup" }, [{ name: "adaptor", tools: new Set(["lookup"]) }])).toEqual(lookup);
  });

  it("names the server it matched among several; the first that matches wins", () => {
    const two: McpServerTools[] = [
      { name: "docs", tools: ["search"] },
      { name: "adaptor", tools: ["lookup", "search"] },
    ];
    expect(mcpToolOf({ name: "mcp__adaptor__search" }, two)).toEqual({ server: "adaptor", tool: "search" });
    expect(mcpToolOf({ name: "mcp__docs__search" }, two)).toEqual({ server: "docs", tool: "search" });
    expect(mcpToolOf({ name: "mcp__docs__lookup" }, two)).toBeUndefined();
  });

  it("takes only a tool the server offers, by its exact name: no prefix, no other server, no tools", () => {
    for (const name of [
      "mcp_adaptor_admin_shell",
      "mcp__adaptor__lookup_all",
      "mcp__adaptor__Lookup",
      "mcp__other__lookup",
      "mcp__adaptor_x__lookup",
      "mcp__adaptor__",
      "x mcp__adaptor__lookup",
      "lookup",
    ]) {
      expect(mcpToolOf({ name, title: name }, servers)).toBeUndefined();
    }
    expect(mcpToolOf({ name: "mcp__adaptor__lookup" }, [{ name: "adaptor" }])).toBeUndefined();
    expect(mcpToolOf({ name: "mcp__adaptor__lookup" }, [{ name: "adaptor", tools: [] }])).toBeUndefined();
    expect(mcpToolOf({ input: { server: "adaptor", tool: "rm" } }, servers)).toBeUndefined();
    expect(mcpToolOf({ input: { server: "other", tool: "lookup" } }, servers)).toBeUndefined();
    expect(mcpToolOf({ input: { tool: "lookup" } }, servers)).toBeUndefined();
    expect(mcpToolOf({ input: ["adaptor", "lookup"] }, servers)).toBeUndefined();
    expect(mcpToolOf({}, servers)).toBeUndefined();
  });

  it("reads each form only where the agent puts it: a title in a name's form, a name in a title's form, a bare server/tool are none", () => {
    expect(mcpToolOf({ name: "Bash", title: "mcp__adaptor__lookup" }, servers)).toBeUndefined();
    expect(mcpToolOf({ name: "Bash", title: "mcp_adaptor_lookup" }, servers)).toBeUndefined();
    expect(mcpToolOf({ name: "Tool: adaptor/lookup", title: "Bash" }, servers)).toBeUndefined();
    expect(mcpToolOf({ name: "adaptor/lookup", title: "adaptor/lookup" }, servers)).toBeUndefined();
  });
});

describe("knownInput: whether a tool call's reported input says something", () => {
  it("absent, null and {} say nothing; any other object, an array (even empty), a string, a number, false say something", () => {
    for (const input of [undefined, null, {}]) expect(knownInput(input)).toBe(false);
    for (const input of [{ word: "a" }, { arguments: {} }, [], ["a"], "", "ls", 0, false]) expect(knownInput(input)).toBe(true);
  });
});
