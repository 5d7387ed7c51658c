import { existsSync } from "node:fs";
import type { Driver } from "@adaptor/driver";
import { describeDriverConformance, type DriverFixture } from "@adaptor/driver/testing";
import { startChatCompletionsServer, whenChatUserSays, type ChatCompletionsServer, type ChatScriptRule } from "@adaptor/testkit";
import { Agent } from "adaptor";
import type { SuiteHarness } from "./agent-suite.js";
import { isolatedHome, type IsolatedHome } from "./support.js";

/** Builds an agent's driver against the scripted chat-completions `server`, in `home`. */
export type ChatDriverOf = (home: IsolatedHome, server: ChatCompletionsServer) => Driver;

/** A {@link SuiteHarness} of an agent that speaks OpenAI chat completions, with its scripted server. */
export interface ChatHarness extends SuiteHarness {
  readonly server: ChatCompletionsServer;
}

/** A private home, a scripted chat-completions server with `rules`, and an Agent on `driverOf`. */
export async function chatHarness(driverOf: ChatDriverOf, rules: readonly ChatScriptRule[]): Promise<ChatHarness> {
  const home = await isolatedHome();
  const server = await startChatCompletionsServer({ rules });
  const agent = new Agent(driverOf(home, server));
  return {
    agent,
    server,
    workDir: home.workDir,
    home: home.home,
    async close() {
      await agent.close();
      await server.close();
      await home.cleanup();
    },
  };
}

interface ChatFixture extends DriverFixture {
  readonly home: IsolatedHome;
}

/**
 * The public conformance kit against a chat-completions agent on its real binary: `rules` must
 * answer `WRITE_IT <path>` with the agent's write tool; the kit's own turns answer the rest
 * (structured output, HTTP 400, `SLOW_MS`). The approval clauses run under `ask`.
 */
export function describeChatAgentConformance(
  name: string,
  options: {
    readonly driverOf: ChatDriverOf;
    readonly rules: readonly ChatScriptRule[];
    readonly makeForeignDriver: () => Driver;
    readonly makeMissingDriver: () => Driver;
    readonly cancelAfterMs: number;
    readonly timeoutMs: number;
  },
): void {
  const makeDriver = async (): Promise<ChatFixture> => {
    const home = await isolatedHome();
    const server = await startChatCompletionsServer({
      rules: [
        { when: whenChatUserSays("so-conformance"), reply: { text: '{"answer":"forty-two"}' } },
        { when: whenChatUserSays("HTTP_ERROR"), reply: { error: { status: 400, message: "Scripted HTTP_ERROR 400" } } },
        ...options.rules,
      ],
    });
    return {
      driver: options.driverOf(home, server),
      home,
      cleanup: async () => {
        await server.close();
        await home.cleanup();
      },
    };
  };
  describeDriverConformance<ChatFixture>(name, {
    makeDriver,
    scripted: {
      text: () => ({ request: { prompt: "hello conformance" }, expectText: "Fake reply." }),
      // Neither qwen's nor OpenCode's own default asks before a write: the approval clauses ask for `ask`.
      toolApproval: (f) => ({
        request: { prompt: `WRITE_IT ${f.home.workDir}/conformance.txt`, policy: { approvals: { permission: "ask" } } },
        toolRan: () => existsSync(`${f.home.workDir}/conformance.txt`),
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
    makeForeignDriver: options.makeForeignDriver,
    makeMissingDriver: options.makeMissingDriver,
    cancelAfterMs: options.cancelAfterMs,
    timeoutMs: options.timeoutMs,
  });
}
