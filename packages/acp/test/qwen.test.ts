import { describe, expect, it } from "vitest";
import { whenChatUserSays, type ChatCompletionsServer, type ChatScriptRule } from "@adaptor/testkit";
import { mcpFixtureCommand } from "@adaptor/testkit/mcp-fixtures";
import { ErrMCPUnsupported, isError, mcpStdio } from "adaptor";
import { qwen } from "../src/index.js";
import { agentPolicySuite } from "./agent-suite.js";
import { chatHarness, type ChatHarness } from "./chat-agent.js";
import { collect, type IsolatedHome } from "./support.js";

// Qwen Code 0.24.4 over ACP against the testkit's scripted chat-completions server on 127.0.0.1.
// Its proxies point at a closed port and its home is private (isolatedHome).

/** The environment that logs qwen in against `server` (OpenAI-compatible key, base URL, model). */
export function qwenEnv(home: IsolatedHome, server: ChatCompletionsServer): Record<string, string> {
  return { ...home.env, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_MODEL: "qwen-test" };
}

/**
 * `RUN_TOUCH <path>` → qwen's shell tool touching it; `WRITE_IT <path>` → its write tool; "say
 * hello" → a greeting; qwen's auto-mode safety classifier is told every call is safe (so a command
 * runs unasked unless the driver selected the mode in which qwen asks).
 */
export const QWEN_RULES: readonly ChatScriptRule[] = [
  {
    when: (view) => view.toolNames.includes("respond_in_schema"),
    reply: { toolCall: { name: "respond_in_schema", arguments: { shouldBlock: false } } },
  },
  { when: whenChatUserSays("say hello"), reply: { text: "Hello from the scripted model." } },
  {
    when: whenChatUserSays("RUN_TOUCH"),
    reply: (view) => ({
      toolCall: {
        name: "run_shell_command",
        arguments: { command: `touch ${/RUN_TOUCH (\S+)/.exec(view.lastUserText)?.[1] ?? ""}`, is_background: false, description: "touch" },
      },
    }),
  },
  {
    when: whenChatUserSays("WRITE_IT"),
    reply: (view) => ({
      toolCall: { name: "write_file", arguments: { file_path: /WRITE_IT (\S+)/.exec(view.lastUserText)?.[1] ?? "", content: "hello\n" } },
    }),
  },
];

const harness = (rules: readonly ChatScriptRule[] = QWEN_RULES): Promise<ChatHarness> =>
  chatHarness((home, server) => qwen({ cwd: home.workDir, inheritEnv: false, env: qwenEnv(home, server) }), rules);

describe("qwen-code on the real binary", () => {
  agentPolicySuite<ChatHarness>({
    harness: () => harness(),
    writePrompt: (_, file) => `WRITE_IT ${file}`,
    touchPrompt: (_, file) => `RUN_TOUCH ${file}`,
    writeTool: "write_file",
    shellTool: "run_shell_command",
    modes: { ask: "default", readOnly: "plan" },
    afterApprovedWrite: (_, events) => {
      // qwen writes through the host when the host offers its fs.
      expect(events.some((e) => e.type === "notice" && e.kind === "host" && e.message?.startsWith("fs/write_text_file"))).toBe(true);
    },
    afterReadOnly: (_, events) => expect(events.find((e) => e.type === "tool-result")).toMatchObject({ isError: true }),
  });

  it("an MCP server is refused before launch (qwen never offered a declared stdio server to the model)", async () => {
    const h = await harness();
    try {
      const fixture = mcpFixtureCommand();
      const stream = h.agent.stream("hi", { mcpServers: [mcpStdio("fixture", fixture.command, { args: fixture.args })] });
      const events = await collect(stream);
      expect(isError(await stream.result().catch((e: unknown) => e), ErrMCPUnsupported)).toBe(true);
      expect(events.some((e) => e.type === "process")).toBe(false);
    } finally {
      await h.close();
    }
  });
});
