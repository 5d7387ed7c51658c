import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  startChatCompletionsServer,
  whenChatToolResult,
  whenChatUserSays,
  type ChatCompletionsServer,
  type ChatScriptRule,
} from "@adaptor/testkit";
import { mcpFixtureCommand } from "@adaptor/testkit/mcp-fixtures";
import { Agent, mcpStdio } from "adaptor";
import { opencode, type OpencodeConfig } from "../src/index.js";
import { collect, expectCancelLeavesNothing, isolatedHome, type IsolatedHome } from "./support.js";

// OpenCode 1.18.33 over ACP (`opencode acp`) against the testkit's scripted chat-completions server
// on 127.0.0.1, as an OpenAI-compatible provider. Its proxies point at a closed port and its home is private.

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

/** The opencode() config that runs against `server`: a private home and one scripted OpenAI-compatible model. */
export function opencodeTestConfig(home: IsolatedHome, server: ChatCompletionsServer): OpencodeConfig {
  return {
    cwd: home.workDir,
    inheritEnv: false,
    env: home.env,
    opencodeConfig: {
      provider: {
        scripted: {
          npm: "@ai-sdk/openai-compatible",
          name: "Scripted",
          options: { baseURL: `${server.url}/v1`, apiKey: "sk-test" },
          models: { "test-model": { name: "Test model" } },
        },
      },
      model: "scripted/test-model",
      small_model: "scripted/test-model",
    },
  };
}

/** `RUN_TOUCH <name>` → OpenCode's `bash` touching `<workDir>/<name>`; `WRITE_IT <name>` → its `write`. */
export function opencodeTools(home: IsolatedHome): ChatScriptRule[] {
  const arg = (view: { lastUserText: string }): string =>
    join(home.workDir, /(?:RUN_TOUCH|WRITE_IT) (\S+)/.exec(view.lastUserText)?.[1] ?? "x.txt");
  return [
    {
      when: whenChatUserSays("RUN_TOUCH"),
      reply: (view) => ({ toolCall: { name: "bash", arguments: { command: `touch ${arg(view)}`, description: "touch" } } }),
    },
    {
      when: whenChatUserSays("WRITE_IT"),
      reply: (view) => ({ toolCall: { name: "write", arguments: { filePath: arg(view), content: "hello\n" } } }),
    },
  ];
}

async function harness(rules: (home: IsolatedHome) => ChatScriptRule[] = () => []): Promise<Harness> {
  const home = await isolatedHome();
  const server = await startChatCompletionsServer({ rules: rules(home) });
  h = { server, home, agent: new Agent(opencode(opencodeTestConfig(home, server))) };
  return h;
}

describe("opencode on the real binary", () => {
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

  it("tool approved under ask: the preset's asking agent is selected and checked; asked once, the file is written", async () => {
    await harness(opencodeTools);
    const asked: string[] = [];
    const stream = h!.agent.stream("WRITE_IT approved.txt", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(String(request.toolName));
        request.approve();
      },
    });
    const events = await collect(stream);
    const result = await stream.result();
    expect(events.some((e) => e.type === "notice" && e.message === "session mode adaptor-ask")).toBe(true);
    expect(asked).toEqual(["write"]);
    expect(existsSync(join(h!.home.workDir, "approved.txt"))).toBe(true);
    expect(result.enforcement).toEqual([
      expect.objectContaining({
        field: "approvals.permission",
        value: "ask",
        enforced: true,
        mechanisms: ["agent_mode", "approval", "host_capability"],
      }),
    ]);
  });

  it("ask really asks: a denying handler stops the shell command and the file it would write is absent", async () => {
    await harness(opencodeTools);
    const file = join(h!.home.workDir, "touched.txt");
    const asked: string[] = [];
    const stream = h!.agent.stream("RUN_TOUCH touched.txt", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(`${String(request.toolName)}: ${String((request.input as { command?: unknown }).command)}`);
        request.deny("no shell today");
      },
    });
    const events = await collect(stream);
    await stream.result();
    expect(asked).toEqual([`bash: touch ${file}`]);
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ isError: true });
    expect(existsSync(file)).toBe(false);
  });

  it("read_only really blocks writes: the preset's read-only agent has no write, edit, bash or task tool; the file is absent", async () => {
    await harness(opencodeTools);
    const stream = h!.agent.stream("WRITE_IT blocked.txt", { policy: { sandbox: "read_only" } });
    const events = await collect(stream);
    const result = await stream.result();
    expect(events.some((e) => e.type === "notice" && e.message === "session mode adaptor-read-only")).toBe(true);
    const offered = h!.server.turns().find((view) => view.lastUserText.includes("WRITE_IT") && view.toolNames.length > 0)?.toolNames ?? [];
    expect(offered).toContain("read");
    for (const tool of ["write", "edit", "bash", "task"]) expect(offered).not.toContain(tool);
    expect(existsSync(join(h!.home.workDir, "blocked.txt"))).toBe(false);
    expect(result.enforcement).toEqual([expect.objectContaining({ field: "sandbox", value: "read_only", enforced: true })]);
  });

  it("cancel mid-turn: no process is left; the verdict is the abort", async () => {
    await harness();
    await expectCancelLeavesNothing(h!.agent, "SLOW_MS 60000 slow one", h!.home.home);
  });

  it("MCP over stdio: the model calls the fixture's tool and its result comes back", async () => {
    const fixture = mcpFixtureCommand();
    await harness(() => [
      { when: whenChatUserSays("CALL_ECHO"), reply: { toolCall: { name: "fixture_echo", arguments: { text: "ping" } } } },
      { when: whenChatToolResult("fixture_echo"), reply: (view) => ({ text: `echoed: ${view.lastToolResult?.content ?? ""}` }) },
    ]);
    const result = await h!.agent.run("CALL_ECHO please", { mcpServers: [mcpStdio("fixture", fixture.command, { args: fixture.args })] });
    expect(result.text).toMatch(/^echoed: .*ping/);
  });
});
