import { describe, expect, it } from "vitest";
import { findError, isError, MalformedStringError } from "@adaptor/errors";
import {
  ErrInvalidConfig,
  ErrTransportUnsupported,
  ErrUnsupported,
  checkMcpSupport,
  mcpHttp,
  mcpSse,
  mcpStdio,
  resolveMcpServers,
  validateMcpServers,
} from "../index.js";

function invalid(servers: readonly unknown[]): string {
  try {
    validateMcpServers(servers);
  } catch (error) {
    expect(isError(error, ErrInvalidConfig)).toBe(true);
    return (error as Error).message;
  }
  throw new Error("expected ErrInvalidConfig");
}

describe("MCP declarations", () => {
  it("constructors make frozen declarations of each transport", () => {
    expect(mcpStdio("files", "node", { args: ["srv.js"], env: { A: "1" }, required: true })).toEqual({
      name: "files",
      transport: "stdio",
      command: "node",
      args: ["srv.js"],
      env: { A: "1" },
      required: true,
    });
    expect(mcpHttp("issues", "https://mcp.example.com/mcp", { bearerTokenEnv: "TOKEN" })).toMatchObject({ transport: "http" });
    expect(mcpSse("legacy", "http://127.0.0.1:9/sse").transport).toBe("sse");
    expect(Object.isFrozen(mcpStdio("a", "b"))).toBe(true);
  });

  it("valid declarations come back as frozen copies, in order", () => {
    const args = ["x"];
    const servers = validateMcpServers([mcpStdio("a", "node", { args }), mcpHttp("b", "http://127.0.0.1:1/mcp")]);
    args.push("mutated");
    expect(servers.map((s) => s.name)).toEqual(["a", "b"]);
    expect(servers[0]).toMatchObject({ args: ["x"] });
  });
});

describe("validateMcpServers → ErrInvalidConfig naming the server", () => {
  it("missing, malformed and duplicate names", () => {
    expect(invalid([{ transport: "stdio", command: "node" }])).toBe("MCP server #1: missing name");
    expect(invalid([mcpStdio("", "node")])).toBe("MCP server #1: missing name");
    expect(invalid([mcpStdio("has space", "node")])).toContain('MCP server "has space": name must be');
    expect(invalid([mcpStdio("dup", "node"), mcpHttp("dup", "http://x/mcp")])).toBe('MCP server "dup": duplicate name');
  });

  it("missing command or URL, bad URL", () => {
    expect(invalid([mcpStdio("files", " ")])).toBe('MCP server "files": missing command');
    expect(invalid([mcpHttp("web", "")])).toBe('MCP server "web": missing url');
    expect(invalid([mcpSse("web", "not a url")])).toContain('MCP server "web": url "not a url" is not a URL');
    expect(invalid([mcpHttp("web", "ftp://host/x")])).toContain('MCP server "web": url must be http: or https:');
  });

  it("unknown transport", () => {
    expect(invalid([{ name: "ws", transport: "websocket", url: "ws://x" }])).toBe(
      'MCP server "ws": unknown transport "websocket" (expected stdio, http or sse)',
    );
    expect(invalid([{ name: "none", command: "node" }])).toContain('MCP server "none": unknown transport undefined');
  });

  it("a field of one transport on another, and unknown fields", () => {
    expect(invalid([{ ...mcpStdio("files", "node"), url: "http://x" }])).toBe(
      'MCP server "files": field url does not apply to transport stdio',
    );
    expect(invalid([{ ...mcpHttp("web", "http://x/mcp"), command: "node" }])).toBe(
      'MCP server "web": field command does not apply to transport http',
    );
    expect(invalid([{ ...mcpSse("web", "http://x/sse"), env: {} }])).toBe('MCP server "web": field env does not apply to transport sse');
    expect(invalid([{ ...mcpStdio("files", "node"), bearerTokenEnv: "T" }])).toBe(
      'MCP server "files": field bearerTokenEnv does not apply to transport stdio',
    );
    expect(invalid([{ ...mcpStdio("files", "node"), cmd: "x" }])).toBe('MCP server "files": unknown field cmd');
  });

  it("wrong types of args, env, headers, required, bearerTokenEnv; not an object", () => {
    expect(invalid([mcpStdio("a", "node", { args: [1 as unknown as string] })])).toBe('MCP server "a": args must be an array of strings');
    expect(invalid([mcpStdio("a", "node", { env: { X: 1 as unknown as string } })])).toBe(
      'MCP server "a": env.X must be a string, got number',
    );
    expect(invalid([mcpHttp("a", "http://x", { headers: [] as unknown as Record<string, string> })])).toContain("headers must be");
    expect(invalid([{ ...mcpStdio("a", "node"), required: "yes" }])).toBe('MCP server "a": required must be a boolean');
    expect(invalid([mcpHttp("a", "http://x", { bearerTokenEnv: "not a var" })])).toContain("bearerTokenEnv must be");
    expect(invalid([null])).toBe("MCP server #1: declaration must be an object");
  });

  it("inheritEnv on a stdio server: booleans and name lists pass through resolution; a bad entry or a remote server is refused", () => {
    expect(validateMcpServers([mcpStdio("a", "node", { inheritEnv: ["PATH", "AWS_*"] })])[0]).toMatchObject({
      inheritEnv: ["PATH", "AWS_*"],
    });
    expect(resolveMcpServers(validateMcpServers([mcpStdio("a", "node", { inheritEnv: ["PATH"] })]))).toEqual([
      { name: "a", transport: "stdio", command: "node", inheritEnv: ["PATH"] },
    ]);
    expect(invalid([mcpStdio("a", "node", { inheritEnv: ["A B"] })])).toBe(
      'MCP server "a": inheritEnv must be true, false or an array of variable names (a trailing * matches a prefix)',
    );
    expect(invalid([{ ...mcpHttp("a", "http://x"), inheritEnv: true }])).toBe(
      'MCP server "a": field inheritEnv does not apply to transport http',
    );
  });
});

describe("checkMcpSupport", () => {
  it("no MCP in the driver → ErrUnsupported; a transport it lacks → ErrTransportUnsupported naming the server", () => {
    const servers = validateMcpServers([mcpStdio("files", "node"), mcpSse("legacy", "http://x/sse")]);
    expect(() => checkMcpSupport([], [], "fake")).not.toThrow();
    try {
      checkMcpSupport(servers, [], "fake");
      expect.unreachable();
    } catch (error) {
      expect(isError(error, ErrUnsupported)).toBe(true);
      expect((error as Error).message).toContain("driver fake does not support MCP servers");
    }
    try {
      checkMcpSupport(servers, ["stdio", "http"], "claude");
      expect.unreachable();
    } catch (error) {
      expect(isError(error, ErrTransportUnsupported)).toBe(true);
      expect(isError(error, ErrUnsupported)).toBe(false);
      expect((error as Error).message).toBe('MCP server "legacy": driver claude does not support transport sse (supported: stdio, http)');
    }
  });
});

describe("resolveMcpServers", () => {
  it("turns bearerTokenEnv into an Authorization header, read from the run env first", () => {
    const servers = validateMcpServers([
      mcpHttp("a", "http://x/mcp", { bearerTokenEnv: "MCP_TOKEN_A", headers: { "X-Team": "blue" }, required: true }),
      mcpHttp("b", "http://x/mcp", { bearerTokenEnv: "MCP_TOKEN_A", headers: { authorization: "Basic abc" } }),
      mcpStdio("c", "node"),
    ]);
    const resolved = resolveMcpServers(servers, { MCP_TOKEN_A: "tok-1" });
    expect(resolved).toEqual([
      { name: "a", transport: "http", url: "http://x/mcp", headers: { "X-Team": "blue", Authorization: "Bearer tok-1" }, required: true },
      { name: "b", transport: "http", url: "http://x/mcp", headers: { authorization: "Basic abc" } },
      { name: "c", transport: "stdio", command: "node" },
    ]);
  });

  it("an unset bearer token variable → ErrInvalidConfig naming the server", () => {
    const servers = validateMcpServers([mcpSse("remote", "http://x/sse", { bearerTokenEnv: "ADAPTOR_TEST_UNSET_TOKEN" })]);
    expect(() => resolveMcpServers(servers, {})).toThrow('MCP server "remote": bearer token variable ADAPTOR_TEST_UNSET_TOKEN is not set');
  });
});

describe("validateMcpServers: text a process cannot be given", () => {
  it.each([
    [{ name: "a", transport: "stdio", command: "srv\0" }, "command"],
    [{ name: "a", transport: "stdio", command: "srv", args: ["ok", "x\uD800"] }, "args[1]"],
    [{ name: "a", transport: "stdio", command: "srv", env: { K: "v\uDC00" } }, "env.K"],
    [{ name: "a", transport: "http", url: "http://127.0.0.1/", headers: { "X-A": "b\0" } }, "headers.X-A"],
  ])("refuses %j naming %s, as ErrInvalidConfig caused by a MalformedStringError", (server, field) => {
    let caught: unknown;
    try {
      validateMcpServers([server]);
    } catch (error) {
      caught = error;
    }
    expect(isError(caught, ErrInvalidConfig)).toBe(true);
    expect(findError(caught, MalformedStringError)?.field).toBe(field);
  });
});
