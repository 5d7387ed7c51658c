import { describeDriverConformance, type DriverFixture } from "@adaptor/driver/testing";
import { startChatCompletionsServer, whenChatUserSays, type ChatCompletionsServer } from "@adaptor/testkit";
import { qwen } from "../src/index.js";
import { isolatedHome, type IsolatedHome } from "./support.js";
import { QWEN_RULES, qwenEnv } from "./qwen.test.js";

// The public driver conformance kit against qwen() on the real qwen-code 0.24.4.

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
      ...QWEN_RULES,
    ],
  });
  return {
    driver: qwen({ cwd: home.workDir, inheritEnv: false, env: qwenEnv(home, server) }),
    server,
    home,
    cleanup: async () => {
      await server.close();
      await home.cleanup();
    },
  };
};

describeDriverConformance<Fixture>("qwen() (real qwen-code)", {
  makeDriver,
  scripted: {
    text: () => ({ request: { prompt: "hello conformance" }, expectText: "Fake reply." }),
    // qwen's own default mode lets a classifier write unasked: the approval clauses ask for `ask`.
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
  makeForeignDriver: () => qwen({ command: "" }),
  makeMissingDriver: () => qwen({ command: "/nonexistent/bin/qwen" }),
  cancelAfterMs: 12_000,
  timeoutMs: 120_000,
});
