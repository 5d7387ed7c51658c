import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startChatCompletionsServer, whenChatUserSays, type ChatCompletionsServer, type ChatScriptRule } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { qwen } from "../src/index.js";
import { collect, isolatedHome, type IsolatedHome } from "./support.js";

// Qwen Code 0.24.4 over ACP against the testkit's scripted chat-completions server on 127.0.0.1.

interface Harness {
  readonly server: ChatCompletionsServer;
  readonly home: IsolatedHome;
  readonly agent: Agent;
}
let h: Harness | undefined;
afterEach(async () => {
  await h?.agent.close();
  await h?.server.close();
  await h?.home.cleanup();
  h = undefined;
});

async function harness(rules: (home: IsolatedHome) => ChatScriptRule[] = () => []): Promise<Harness> {
  const home = await isolatedHome();
  const server = await startChatCompletionsServer({ rules: rules(home) });
  const env = { ...home.env, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_MODEL: "qwen-test" };
  h = { server, home, agent: new Agent(qwen({ cwd: home.workDir, inheritEnv: false, env })) };
  return h;
}

const TOUCHED = "touched.txt";
const touch = (home: IsolatedHome): ChatScriptRule => ({
  when: whenChatUserSays("RUN_TOUCH"),
  reply: {
    toolCall: {
      name: "run_shell_command",
      arguments: { command: `touch ${join(home.workDir, TOUCHED)}`, is_background: false, description: "touch" },
    },
  },
});
const WRITTEN = "written.txt";
const write = (home: IsolatedHome): ChatScriptRule => ({
  when: whenChatUserSays("WRITE_IT"),
  reply: { toolCall: { name: "write_file", arguments: { file_path: join(home.workDir, WRITTEN), content: "hello\n" } } },
});

describe("qwen-code on the real binary", () => {
  it("text turn: the final text and deltas", async () => {
    await harness(() => [{ when: whenChatUserSays("say hello"), reply: { text: "Hello from the scripted model." } }]);
    const stream = h!.agent.stream("please say hello");
    const events = await collect(stream);
    const result = await stream.result();
    expect(result.text).toBe("Hello from the scripted model.");
    expect(
      events
        .filter((e) => e.type === "text-delta")
        .map((e) => (e.type === "text-delta" ? e.text : ""))
        .join(""),
    ).toBe(result.text);
  });

  it("ask really asks: a denying handler stops the shell command, the file is absent; the Result says how", async () => {
    await harness((home) => [touch(home)]);
    const asked: string[] = [];
    const result = await h!.agent.run("RUN_TOUCH now", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(String(request.toolName));
        request.deny("no shell today");
      },
    });
    expect(asked.length).toBeGreaterThan(0);
    expect(existsSync(join(h!.home.workDir, TOUCHED))).toBe(false);
    expect(result.enforcement).toEqual([
      expect.objectContaining({
        field: "approvals.permission",
        value: "ask",
        enforced: true,
        mechanisms: ["agent_mode", "approval", "host_capability"],
      }),
    ]);
  });
});
