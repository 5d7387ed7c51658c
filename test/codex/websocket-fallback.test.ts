import { afterEach, describe, expect, it } from "vitest";
import { codexTestEnv, refusedLocalPort, startOpenAIServer, type CodexTestEnv, type OpenAIServer } from "@adaptor/testkit";
import { Agent, RunError } from "adaptor";
import { codex, type CodexConfig } from "@adaptor/codex";
import { alive, drainRetries } from "./support.js";

// codex's built-in provider pointed at a model server with `openai_base_url` (the route a user
// takes) opens each turn on a websocket. The scripted server refuses the upgrade (it answers the
// GET with a 404), so codex 0.171.0 announces `Reconnecting... n/5` and, after the fifth try, falls
// back to HTTP POST: the driver's retry bound must leave those counted tries to codex.

let env: CodexTestEnv | undefined;
let server: OpenAIServer | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await server?.close();
  await env?.cleanup();
  agent = server = env = undefined;
});

async function run(baseUrl: string, config: CodexConfig) {
  env = await codexTestEnv({ baseUrl, provider: "openai" });
  agent = new Agent(codex({ cwd: env.workDir, env: env.env, inheritEnv: false, killGraceMs: 1000, ...config }));
  return drainRetries(agent.stream("hello over http"));
}

describe("codex with openai_base_url on a model server without websockets", () => {
  for (const transport of ["app-server", "exec"] as const) {
    it(`${transport}: codex's websocket tries run out and its HTTP fallback answers, under the default maxModelRetries`, async () => {
      server = await startOpenAIServer({ rules: [] });
      const { text, error, retries } = await run(server.baseUrl, { transport });
      expect(error).toBeUndefined();
      expect(text).toContain('first user text: "hello over http"');
      // More announced retries than the default bound of 3, all of them codex's counted websocket tries.
      expect(retries.length).toBeGreaterThan(3);
      expect(retries.every((message) => /^Reconnecting\.\.\. \d\/5/.test(message))).toBe(true);
      expect(server.requests.some((r) => r.method === "GET" && r.path === "/v1/responses")).toBe(true);
      expect(server.responses().length).toBe(1);
    });

    it(`${transport}: a server nobody listens on still ends the turn at maxModelRetries, counting the retries after the fallback`, async () => {
      const { error, retries, pid } = await run(`http://127.0.0.1:${await refusedLocalPort()}/v1`, { transport, maxModelRetries: 0 });
      expect(error).toBeInstanceOf(RunError);
      expect((error as RunError).reason).toBe("agent_error");
      expect((error as RunError).message).toMatch(/^model unreachable: Reconnecting\.\.\. waiting for network.*after 1 retry$/);
      expect(retries.at(-1)).toMatch(/^Reconnecting\.\.\. waiting for network/);
      expect(retries.slice(0, -1).every((message) => /^Reconnecting\.\.\. \d\/5/.test(message))).toBe(true);
      expect(alive(pid!)).toBe(false);
    });
  }
});
