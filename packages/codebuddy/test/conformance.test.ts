import { describeDriverConformance, type DriverFixture } from "@adaptor/driver/testing";
import { startChatCompletionsServer, whenChatUserSays, type ChatCompletionsServer } from "@adaptor/testkit";
import { codebuddy } from "../src/index.js";
import { CODEBUDDY_BIN, codebuddyTestEnv, SCRIPTED_MODEL, type CodeBuddyTestEnv } from "./support.js";

// The public driver conformance kit on the CodeBuddy driver, against the real `codebuddy` CLI
// (2.117.0) and a scripted chat-completions model.

interface Fixture extends DriverFixture {
  readonly env: CodeBuddyTestEnv;
  readonly server: ChatCompletionsServer;
}

async function fixture(): Promise<Fixture> {
  const server = await startChatCompletionsServer({
    rules: [
      { when: whenChatUserSays("HTTP_ERROR"), reply: { error: { status: 400, message: "Scripted HTTP_ERROR 400" } } },
      {
        when: whenChatUserSays(/WRITE_IT ([^\s<]+)/),
        reply: (view) => ({
          toolCall: {
            name: "Write",
            arguments: { file_path: /WRITE_IT ([^\s<]+)/.exec(view.lastUserText)![1]!, content: "conformance\n" },
          },
        }),
      },
    ],
  });
  const env = codebuddyTestEnv(server);
  return {
    driver: codebuddy({
      command: CODEBUDDY_BIN,
      model: SCRIPTED_MODEL,
      cwd: env.workDir,
      env: env.env,
      inheritEnv: false,
      killGraceMs: 2000,
    }),
    env,
    server,
    cleanup: async () => {
      await server.close();
      await env.close();
    },
  };
}

describeDriverConformance<Fixture>("codebuddy (real CLI)", {
  makeDriver: fixture,
  scripted: {
    text: () => ({ request: { prompt: "hello conformance" }, expectText: "Fake reply." }),
    toolApproval: (f) => ({
      request: { prompt: `WRITE_IT ${f.env.workDir}/conformance.txt`, policy: { approvals: { permission: "ask" } } },
    }),
    slow: () => ({ request: { prompt: "SLOW_MS 60000 slow conformance" } }),
    failing: () => ({ request: { prompt: "HTTP_ERROR please" }, expectMessage: "HTTP_ERROR" }),
  },
  makeForeignDriver: () => codebuddy({ comand: "codebuddy" } as never),
  makeMissingDriver: () => codebuddy({ command: "/nonexistent/bin/codebuddy" }),
  cancelAfterMs: 12_000,
  timeoutMs: 120_000,
});
