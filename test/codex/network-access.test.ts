import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { codexTestEnv, startOpenAIServer, whenPromptSays, whenToolOutput, type OpenAIServer } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { codex, type CodexConfig } from "@adaptor/codex";

// The Codex SDK's `networkAccessEnabled` on adaptor: codex's own
// `sandbox_workspace_write.network_access` through `configOverrides` (docs/migrating.md). Under
// `workspace_write` a command reaches a server on 127.0.0.1 with it, and cannot without it.

const open: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function fetchFromSandbox(port: number, path: string, config: Partial<CodexConfig>): Promise<string> {
  const server: OpenAIServer = await startOpenAIServer({
    rules: [
      {
        when: whenPromptSays("fetch it"),
        reply: {
          functionCall: { name: "exec_command", arguments: { cmd: `curl -s -m 3 http://127.0.0.1:${port}${path}; echo " rc=$?"` } },
        },
      },
      { when: whenToolOutput("exec_command"), reply: (view) => ({ text: `output: ${view.lastToolOutput?.output ?? ""}` }) },
    ],
  });
  open.push(server);
  const env = await codexTestEnv({ server });
  open.push({ close: () => env.cleanup() });
  const agent = new Agent(codex({ cwd: env.workDir, env: env.env, inheritEnv: false, ...config }));
  open.push(agent);
  const result = await agent.run("fetch it", { policy: { sandbox: "workspace_write", approvals: { permission: "auto_approve" } } });
  return result.text;
}

describe("codex network access under workspace_write (real binary)", { timeout: 120_000 }, () => {
  it("configOverrides sandbox_workspace_write.network_access: true lets a command reach 127.0.0.1; without it the connection fails", async () => {
    const hits: string[] = [];
    const target: Server = createServer((req, res) => {
      hits.push(req.url ?? "");
      res.end("pong");
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    open.push({ close: () => new Promise<void>((resolve) => target.close(() => resolve())) });
    const port = (target.address() as AddressInfo).port;

    const denied = await fetchFromSandbox(port, "/without", {});
    expect(denied).not.toContain("pong");
    expect(denied).toMatch(/rc=[1-9]/);
    const allowed = await fetchFromSandbox(port, "/with", { configOverrides: { "sandbox_workspace_write.network_access": true } });
    expect(allowed).toContain("pong rc=0");
    expect(hits).toEqual(["/with"]);
  });
});
