import { describeDriverConformance, type DriverFixture } from "@adaptor/driver/testing";
import { claudeTestEnv, startAnthropicServer, whenUserSays, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { claudeAgentAcp } from "../src/index.js";
import { anthropicConformanceScripts } from "./support.js";

// The public driver conformance kit against claudeAgentAcp() on the real adapter (0.23.1).

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
    driver: claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }),
    server,
    env,
    cleanup: async () => {
      await server.close();
      await env.cleanup();
    },
  };
};

describeDriverConformance<Fixture>("claudeAgentAcp() (real claude-agent-acp)", {
  makeDriver,
  scripted: anthropicConformanceScripts<Fixture>(),
  makeForeignDriver: () => claudeAgentAcp({ command: "" }),
  makeMissingDriver: () => claudeAgentAcp({ command: "/nonexistent/bin/claude-agent-acp" }),
  cancelAfterMs: 3000,
});
