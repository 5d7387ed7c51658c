import { describeDriverConformance, type DriverFixture } from "@adaptor/driver/testing";
import { claudeTestEnv, startAnthropicServer, whenUserSays, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { acp } from "../src/index.js";
import { anthropicConformanceScripts, claudeAcp } from "./support.js";

// The public driver conformance kit against acp() running Claude Code's ACP adapter (0.16.2).

interface Fixture extends DriverFixture {
  readonly server: AnthropicServer;
  readonly env: ClaudeTestEnv;
}

const makeDriver = async (): Promise<Fixture> => {
  const server = await startAnthropicServer({
    rules: [{ when: whenUserSays("so-conformance"), reply: { text: '{"answer":"forty-two"}' } }],
  });
  const env = await claudeTestEnv({ server });
  return {
    driver: claudeAcp(env),
    server,
    env,
    cleanup: async () => {
      await server.close();
      await env.cleanup();
    },
  };
};

describeDriverConformance<Fixture>("claude-code-acp through acp() (real adapter)", {
  makeDriver,
  scripted: anthropicConformanceScripts<Fixture>(),
  concurrent: true,
  makeForeignDriver: () => acp({ command: "" }),
  makeMissingDriver: () => acp({ command: "/nonexistent/bin/claude-code-acp" }),
  cancelAfterMs: 3000,
});
