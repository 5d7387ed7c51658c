import { existsSync } from "node:fs";
import { describeDriverConformance, type DriverFixture } from "@adaptor/driver/testing";
import { startOpenAIServer, type CodexTestEnv, type OpenAIServer } from "@adaptor/testkit";
import { acp } from "../src/index.js";
import { codexAcp, codexAcpEnv } from "./support.js";

// The public driver conformance kit against acp() running Codex's ACP adapter (0.16.0).

interface Fixture extends DriverFixture {
  readonly server: OpenAIServer;
  readonly env: CodexTestEnv;
}

const makeDriver = async (): Promise<Fixture> => {
  const server = await startOpenAIServer();
  const env = await codexAcpEnv(server);
  return {
    driver: codexAcp(env),
    server,
    env,
    cleanup: async () => {
      await server.close();
      await env.cleanup();
    },
  };
};

describeDriverConformance<Fixture>("codex-acp through acp() (real adapter)", {
  makeDriver,
  scripted: {
    text: () => ({ request: { prompt: "hello conformance" }, expectText: "Fake reply." }),
    followUp: () => ({ request: { prompt: "follow up" }, expectText: "Fake reply." }),
    toolApproval: (f) => ({
      request: { prompt: `SHELL_CMD touch ${f.env.workDir}/conformance.txt` },
      toolRan: () => existsSync(`${f.env.workDir}/conformance.txt`),
    }),
    slow: () => ({ request: { prompt: "SLOW_MS 30000 slow conformance" } }),
    failing: () => ({ request: { prompt: "HTTP_ERROR 400" }, expectMessage: "scripted error 400" }),
    structured: () => ({
      request: {
        prompt: 'JSON_REPLY {"answer":"forty-two"}',
        outputSchema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
      },
      expectValue: { answer: "forty-two" },
    }),
  },
  concurrent: true,
  makeForeignDriver: () => acp({ command: "" }),
  makeMissingDriver: () => acp({ command: "/nonexistent/bin/codex-acp" }),
  cancelAfterMs: 3000,
});
