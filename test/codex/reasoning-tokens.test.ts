import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { startOpenAIServer, whenPromptSays } from "@adaptor/testkit";
import { codexHost } from "./support.js";
import { closedAfterEach } from "../support/closed-after-each.js";

// The OpenAI API's reasoning tokens (`output_tokens_details.reasoning_tokens`, which codex reports
// as `reasoning_output_tokens`) reach `result.usage.reasoningTokens` on the real codex binary.

const open = closedAfterEach();

describe("codex reasoning tokens (real binary)", { timeout: 120_000 }, () => {
  it.each(["app-server", "exec"] as const)(
    "%s: result.usage.reasoningTokens is what the model reported, within outputTokens",
    async (transport) => {
      const server = await startOpenAIServer({
        rules: [
          {
            when: whenPromptSays("think hard"),
            reply: { text: "thought", usage: { input_tokens: 120, output_tokens: 40, reasoning_tokens: 25 } },
          },
        ],
      });
      open.push(server);
      const { agent } = await codexHost(server, new MemoryThreadStore(), (item) => void open.push(item), transport);
      const result = await agent.run("think hard");
      expect(result.text).toBe("thought");
      expect(result.usage).toMatchObject({ inputTokens: 120, outputTokens: 40, reasoningTokens: 25 });
    },
  );
});
