import { describe, expect, it } from "vitest";
import { launchSecrets } from "./launch-secrets.js";

describe("launchSecrets", () => {
  it("takes credential-named env values, each MCP header value (a bearer one also bare) and a stdio server's credential-named env values; nothing short, nothing else", () => {
    const secrets = launchSecrets({ ANTHROPIC_API_KEY: "sk-ant-0123456789", HOME: "/home/someone-long", DB_PASS: "short" }, [
      {
        name: "issues",
        transport: "http",
        url: "https://mcp.test/mcp",
        headers: { authorization: "Bearer hdr-0123456789", "x-debug": "true" },
      },
      { name: "files", transport: "stdio", command: "node", env: { FILES_TOKEN: "files-0123456789", FILES_ROOT: "/srv/files/root" } },
    ]);
    expect(secrets).toEqual(["Bearer hdr-0123456789", "sk-ant-0123456789", "files-0123456789", "hdr-0123456789"]);
    expect(launchSecrets({})).toEqual([]);
  });

  it("takes a stdio server's credential-named options and an HTTP server's credential-named query values and URL password; not other arguments", () => {
    const secrets = launchSecrets({}, [
      {
        name: "search",
        transport: "http",
        url: "https://user:url-pass-0123456789@mcp.test/mcp?token=qtok-0123456789&region=europe-west-long",
      },
      {
        name: "files",
        transport: "stdio",
        command: "node",
        args: ["server.js", "--api-key=akey-0123456789", "--auth-token", "atok-0123456789", "--root", "/srv/files/root", "--verbose"],
      },
    ]);
    expect([...secrets].sort()).toEqual(["akey-0123456789", "atok-0123456789", "qtok-0123456789", "url-pass-0123456789"]);
  });
});
