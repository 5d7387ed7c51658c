import { afterEach, describe, expect, it } from "vitest";
import { claude } from "@adaptor/claude";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { postJson, readUntil, serve, sseMessages, type Served } from "./support.js";

// End to end on the real Claude Code binary (scripted model on 127.0.0.1): a model API error that
// echoes the host's key in an encoded form reaches the bridge's client with the key redacted.

const SECRET_ENV = "BRIDGE_ENCODED_TEST_API_KEY";
const SECRET = "Zq9+/Wk3vT7pLm2Xr8Yb";
const base64 = (text: string): string => Buffer.from(text).toString("base64");

let rig: { server: AnthropicServer; env: ClaudeTestEnv; agent: Agent; served: Served } | undefined;
afterEach(async () => {
  delete process.env[SECRET_ENV];
  if (!rig) return;
  await rig.served.close();
  await rig.agent.close();
  await rig.server.close();
  await rig.env.cleanup();
  rig = undefined;
});

/** The `run-finished` message the bridge sends when the model API answers 400 with `message`. */
async function finishedMessage(message: string): Promise<string> {
  const server = await startAnthropicServer({
    rules: [{ name: "refuse", when: () => true, reply: { error: { status: 400, type: "invalid_request_error", message } } }],
  });
  const env = await claudeTestEnv({ server });
  const agent = new Agent(claude({ cwd: env.workDir, env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" }));
  rig = { server, env, agent, served: await serve({ runner: agent }) };
  const response = await postJson(`${rig.served.url}/runs`, { prompt: "hello" });
  const messages = await readUntil(sseMessages(response), (m) => m.data["type"] === "run-finished");
  const finished = messages.at(-1)?.data;
  expect(finished).toMatchObject({ type: "run-finished", ok: false, reason: "agent_error" });
  return String(finished?.["message"]);
}

describe("a model API error echoing the host's key, encoded, reaches a bridge client redacted", () => {
  it("base64 inside a longer encoded text (the key not at a multiple of 3 bytes) and URL-encoded with lowercase hex", async () => {
    process.env[SECRET_ENV] = SECRET;
    const unaligned = base64(JSON.stringify({ token: SECRET }));
    const percent = encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
    const message = await finishedMessage(`bad proxy state ${unaligned} url ${percent}`);
    expect(message).toBe("API Error: 400 bad proxy state eyJ0b2tlbiI6Il[redacted]In0= url [redacted]");
  });

  it("base64 inside a URL's query, its + and / written %2B and %2F", async () => {
    // A key whose encoding at every offset holds both a + and a /.
    const key = "a?b?c>d?e>f?g>h?i";
    process.env[SECRET_ENV] = key;
    const state = encodeURIComponent(base64(`k=${key}`));
    expect(state).toMatch(/%2B.*%2F/);
    const message = await finishedMessage(`redirect https://proxy.test/cb?state=${state}&n=1 refused`);
    expect(message).toBe("API Error: 400 redirect https://proxy.test/cb?state=az1[redacted]Q%3D%3D&n=1 refused");
  });
});
