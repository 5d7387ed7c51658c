import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startChatCompletionsServer, whenChatUserSays, type ChatCompletionsServer, type ChatScriptRule } from "@adaptor/testkit";
import { mcpFixtureCommand } from "@adaptor/testkit/mcp-fixtures";
import { Agent, ErrMCPUnsupported, isError, mcpStdio } from "adaptor";
import { qwen } from "../src/index.js";
import { collect, expectCancelLeavesNothing, isolatedHome, type IsolatedHome } from "./support.js";

// Qwen Code 0.24.4 over ACP against the testkit's scripted chat-completions server on 127.0.0.1.
// Its proxies point at a closed port and its home is private (isolatedHome).

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

/** The environment that logs qwen in against `server` (OpenAI-compatible key, base URL, model). */
export function qwenEnv(home: IsolatedHome, server: ChatCompletionsServer): Record<string, string> {
  return { ...home.env, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_MODEL: "qwen-test" };
}

async function harness(rules: (home: IsolatedHome) => ChatScriptRule[] = () => []): Promise<Harness> {
  const home = await isolatedHome();
  const server = await startChatCompletionsServer({ rules: rules(home) });
  h = { server, home, agent: new Agent(qwen({ cwd: home.workDir, inheritEnv: false, env: qwenEnv(home, server) })) };
  return h;
}

/**
 * `RUN_TOUCH <name>` → qwen's shell tool touching `<workDir>/<name>`; `WRITE_IT <name>` → its write
 * tool; qwen's auto-mode safety classifier is told every call is safe.
 */
export function qwenTools(home: IsolatedHome): ChatScriptRule[] {
  const arg = (view: { lastUserText: string }): string =>
    join(home.workDir, /(?:RUN_TOUCH|WRITE_IT) (\S+)/.exec(view.lastUserText)?.[1] ?? "x.txt");
  return [
    // qwen's own default mode ("auto") asks the model to classify a command; answer "safe", so a
    // command runs unasked unless the driver selected the mode in which qwen asks.
    {
      when: (view) => view.toolNames.includes("respond_in_schema"),
      reply: { toolCall: { name: "respond_in_schema", arguments: { shouldBlock: false } } },
    },
    {
      when: whenChatUserSays("RUN_TOUCH"),
      reply: (view) => ({
        toolCall: { name: "run_shell_command", arguments: { command: `touch ${arg(view)}`, is_background: false, description: "touch" } },
      }),
    },
    {
      when: whenChatUserSays("WRITE_IT"),
      reply: (view) => ({ toolCall: { name: "write_file", arguments: { file_path: arg(view), content: "hello\n" } } }),
    },
  ];
}

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

  it("tool approved under ask: asked once, written through the host's fs/write_text_file; the Result says how ask was enforced", async () => {
    await harness(qwenTools);
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
    expect(asked).toEqual(["WriteFile"]);
    expect(existsSync(join(h!.home.workDir, "approved.txt"))).toBe(true);
    expect(events.some((e) => e.type === "notice" && e.kind === "host" && e.message?.startsWith("fs/write_text_file"))).toBe(true);
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
    await harness(qwenTools);
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
    expect(asked).toEqual([`Shell: touch ${join(h!.home.workDir, "touched.txt")}`]);
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ isError: true });
    expect(existsSync(join(h!.home.workDir, "touched.txt"))).toBe(false);
  });

  it("read_only really blocks writes: session mode plan is set and checked; the write tool fails, the file is absent", async () => {
    await harness(qwenTools);
    const stream = h!.agent.stream("WRITE_IT blocked.txt", { policy: { sandbox: "read_only" } });
    const events = await collect(stream);
    const result = await stream.result();
    expect(events.some((e) => e.type === "notice" && e.message === "session mode plan")).toBe(true);
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ isError: true });
    expect(existsSync(join(h!.home.workDir, "blocked.txt"))).toBe(false);
    expect(result.enforcement).toEqual([expect.objectContaining({ field: "sandbox", value: "read_only", enforced: true })]);
  });

  it("cancel mid-turn: no process is left; the verdict is the abort", async () => {
    await harness();
    await expectCancelLeavesNothing(h!.agent, "SLOW_MS 60000 slow one", h!.home.home);
  });

  it("an MCP server is refused before launch (qwen never offered a declared stdio server to the model)", async () => {
    await harness();
    const fixture = mcpFixtureCommand();
    const stream = h!.agent.stream("hi", { mcpServers: [mcpStdio("fixture", fixture.command, { args: fixture.args })] });
    const events = await collect(stream);
    expect(isError(await stream.result().catch((e: unknown) => e), ErrMCPUnsupported)).toBe(true);
    expect(events.some((e) => e.type === "process")).toBe(false);
  });
});
