import { describeDriverConformance, type DriverFixture } from "@adaptor/driver/testing";
import { startChatCompletionsServer, whenChatUserSays, type ChatCompletionsServer } from "@adaptor/testkit";
import { opencode } from "../src/index.js";
import { isolatedHome, type IsolatedHome } from "./support.js";
import { OPENCODE_RULES, opencodeTestConfig } from "./opencode.test.js";

// The public driver conformance kit against opencode() on the real opencode 1.18.33.

interface Fixture extends DriverFixture {
  readonly server: ChatCompletionsServer;
  readonly home: IsolatedHome;
}

const makeDriver = async (): Promise<Fixture> => {
  const home = await isolatedHome();
  const server = await startChatCompletionsServer({
    rules: [
      { when: whenChatUserSays("so-conformance"), reply: { text: '{"answer":"forty-two"}' } },
      { when: whenChatUserSays("HTTP_ERROR"), reply: { error: { status: 400, message: "Scripted HTTP_ERROR 400" } } },
      ...OPENCODE_RULES,
    ],
  });
  return {
    driver: opencode(opencodeTestConfig(home, server)),
    server,
    home,
    cleanup: async () => {
      await server.close();
      await home.cleanup();
    },
  };
};

describeDriverConformance<Fixture>("opencode() (real opencode)", {
  makeDriver,
  scripted: {
    text: () => ({ request: { prompt: "hello conformance" }, expectText: "Fake reply." }),
    // OpenCode's own default agent asks nothing: the approval clauses ask for `ask`.
    toolApproval: (f) => ({
      request: { prompt: `WRITE_IT ${f.home.workDir}/conformance.txt`, policy: { approvals: { permission: "ask" } } },
    }),
    slow: () => ({ request: { prompt: "SLOW_MS 60000 slow conformance" } }),
    failing: () => ({ request: { prompt: "HTTP_ERROR 400" }, expectMessage: /Scripted HTTP_ERROR 400|400/ }),
    structured: () => ({
      request: {
        prompt: "so-conformance",
        outputSchema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
      },
      expectValue: { answer: "forty-two" },
    }),
  },
  makeForeignDriver: () => opencode({ command: "" }),
  makeMissingDriver: () => opencode({ command: "/nonexistent/bin/opencode" }),
  cancelAfterMs: 20_000,
  timeoutMs: 150_000,
});
