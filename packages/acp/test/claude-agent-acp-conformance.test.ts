import { describeDriverConformance, type DriverFixture } from "@adaptor/driver/testing";
import { claudeTestEnv, startAnthropicServer, whenUserSays, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { claudeAgentAcp } from "../src/index.js";

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
  scripted: {
    text: () => ({ request: { prompt: "hello conformance" }, expectText: "Fake reply." }),
    followUp: () => ({ request: { prompt: "follow up" }, expectText: "Fake reply." }),
    toolApproval: (f) => ({ request: { prompt: `WRITE_FILE ${f.env.workDir}/conformance.txt` } }),
    slow: () => ({ request: { prompt: "SLOW_MS 30000 slow conformance" } }),
    failing: () => ({ request: { prompt: "HTTP_ERROR 400" }, expectMessage: "Scripted HTTP_ERROR 400" }),
    structured: () => ({
      request: {
        prompt: "so-conformance",
        outputSchema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
      },
      expectValue: { answer: "forty-two" },
    }),
  },
  makeForeignDriver: () => claudeAgentAcp({ command: "" }),
  makeMissingDriver: () => claudeAgentAcp({ command: "/nonexistent/bin/claude-agent-acp" }),
  cancelAfterMs: 3000,
});
