// Real-binary smoke tests of the scripted Anthropic server and claudeTestEnv: the pinned claude
// CLI (packages/claude devDependency) is spawned directly with node:child_process, in stream-json
// mode, against a server on 127.0.0.1. Each turn takes about 0.5-1 s.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, onTestFinished, test } from "vitest";
import {
  claudeTestEnv,
  startAnthropicServer,
  whenToolResult,
  whenUserSays,
  type AnthropicServer,
  type ClaudeTestEnv,
  type ScriptRule,
} from "../src/index.js";

const CLAUDE = fileURLToPath(new URL("../../claude/node_modules/.bin/claude", import.meta.url));
const BASE_ARGS = [
  "-p",
  "--output-format",
  "stream-json",
  "--input-format",
  "stream-json",
  "--verbose",
  "--permission-prompt-tool",
  "stdio",
  "--model",
  "claude-sonnet-4-5",
];
const LINE_TIMEOUT_MS = 90_000; // a safety net only: a loaded 2-core machine may take many seconds to start the CLI

type Message = { type: string; subtype?: string; [key: string]: unknown };

/** A running claude process with a queue of its parsed stdout lines. */
interface Claude {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every stdout message so far. */
  readonly messages: Message[];
  send(message: unknown): void;
  /** Next unread message matching `predicate` (earlier non-matching ones are skipped). */
  next(predicate: (message: Message) => boolean): Promise<Message>;
  readonly stderr: () => string;
  readonly exit: Promise<number | null>;
}

/** A server, an isolated env and a claude process, all released when the test finishes. */
async function setup(rules: (env: () => ClaudeTestEnv) => ScriptRule[], extraArgs: string[] = []) {
  let testEnv: ClaudeTestEnv | undefined;
  const getEnv = (): ClaudeTestEnv => {
    if (!testEnv) throw new Error("env not ready");
    return testEnv;
  };
  const server: AnthropicServer = await startAnthropicServer({ rules: rules(getEnv) });
  onTestFinished(() => server.close());
  testEnv = await claudeTestEnv({ server });
  const env = testEnv;
  onTestFinished(() => env.cleanup());
  const claude = spawnClaude(env, extraArgs);
  onTestFinished(() => stop(claude));
  return { server, env, claude };
}

function spawnClaude(env: ClaudeTestEnv, extraArgs: string[]): Claude {
  const child = spawn(CLAUDE, [...BASE_ARGS, ...extraArgs], { cwd: env.workDir, env: env.env, stdio: "pipe" });
  const messages: Message[] = [];
  let cursor = 0;
  let wake: (() => void) | undefined;
  let ended = false;
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin.on("error", () => {}); // EPIPE after the CLI exits is not this test's subject
  createInterface({ input: child.stdout })
    .on("line", (line) => {
      if (line.trim() === "") return;
      messages.push(JSON.parse(line) as Message);
      wake?.();
    })
    .on("close", () => {
      ended = true;
      wake?.();
    });
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  async function next(predicate: (message: Message) => boolean): Promise<Message> {
    const deadline = Date.now() + LINE_TIMEOUT_MS;
    for (;;) {
      while (cursor < messages.length) {
        const message = messages[cursor++];
        if (message && predicate(message)) return message;
      }
      if (ended) throw new Error(`claude stdout ended before the expected line; stderr: ${stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for a claude line; stderr: ${stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  }

  return {
    child,
    messages,
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    next,
    stderr: () => stderr,
    exit,
  };
}

async function stop(claude: Claude): Promise<void> {
  const { child } = claude;
  if (!child.stdin.destroyed) child.stdin.end();
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
  await claude.exit;
  clearTimeout(timer);
}

function userLine(text: string): unknown {
  return {
    type: "user",
    session_id: "",
    message: { role: "user", content: [{ type: "text", text }] },
    parent_tool_use_id: null,
  };
}

const isResult = (message: Message): boolean => message.type === "result";

function messagesRequests(server: AnthropicServer) {
  return server.requests.filter((request) => request.path === "/v1/messages");
}

describe("claude CLI against the scripted Anthropic server", () => {
  test("text turn: the result is the scripted text and the server saw the prompt", async () => {
    const prompt = "Please say hello to the test";
    const { server, claude } = await setup(() => [
      { name: "greeting", when: whenUserSays("say hello"), reply: { text: "Hello from the script." } },
    ]);

    claude.send(userLine(prompt));
    const result = await claude.next(isResult);
    claude.child.stdin.end();

    expect(result).toMatchObject({ subtype: "success", is_error: false, result: "Hello from the script." });
    const requests = messagesRequests(server);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request?.query).toBe("?beta=true");
    expect(request?.rule).toBe("greeting");
    expect(request?.view).toMatchObject({ lastUserText: prompt, firstUserText: prompt, messageCount: 1, stream: true });
    expect(request?.view.model).toBe("claude-sonnet-4-5");
    expect(request?.view.toolNames).toContain("Write");
    expect(request?.headers["x-api-key"]).toBe("<set>");
    expect(request?.headers["user-agent"]).toMatch(/^claude-cli\//);
    expect(await claude.exit).toBe(0);
  });

  test("tool turn: a scripted Write asks can_use_tool, allow writes the file, the follow-up carries the result", async () => {
    const { server, env, claude } = await setup((getEnv) => [
      {
        name: "write",
        when: whenUserSays("create the file"),
        reply: () => ({
          toolUse: { name: "Write", input: { file_path: join(getEnv().workDir, "hello.txt"), content: "scripted content\n" } },
        }),
      },
      { name: "after-write", when: whenToolResult("Write", "hello.txt"), reply: { text: "File written." } },
    ]);
    const target = join(env.workDir, "hello.txt");

    claude.send(userLine("Please create the file"));
    const ask = await claude.next((m) => m.type === "control_request");
    const request = ask.request as { subtype: string; tool_name: string; input: unknown; tool_use_id: string };
    expect(request).toMatchObject({
      subtype: "can_use_tool",
      tool_name: "Write",
      tool_use_id: expect.stringMatching(/^toolu_[0-9a-f]{32}$/),
    });
    expect(request.input).toEqual({ file_path: target, content: "scripted content\n" });
    expect(existsSync(target)).toBe(false);
    claude.send({
      type: "control_response",
      response: { subtype: "success", request_id: ask.request_id, response: { behavior: "allow", updatedInput: request.input } },
    });
    const result = await claude.next(isResult);
    claude.child.stdin.end();

    expect(result).toMatchObject({ is_error: false, result: "File written.", num_turns: 2 });
    expect(await readFile(target, "utf8")).toBe("scripted content\n");
    const requests = messagesRequests(server);
    expect(requests.map((r) => r.rule)).toEqual(["write", "after-write"]);
    const followUp = requests[1]?.view;
    expect(followUp?.lastUserText).toBe("");
    expect(followUp?.lastToolResult).toMatchObject({ toolUseId: request.tool_use_id, toolName: "Write", isError: false });
    expect(followUp?.lastToolResult?.content).toMatch(/^File created successfully at: .*hello\.txt/);
    expect(followUp?.lastToolResult?.content).not.toContain("system-reminder");
    expect(followUp?.firstUserText).toBe("Please create the file");
  });

  test("HTTP 400 from a rule: the result is an error with api_error_status 400 and the message", async () => {
    const { server, claude } = await setup(() => [
      { name: "reject", when: whenUserSays("fail please"), reply: { error: { status: 400, message: "scripted bad request" } } },
    ]);

    claude.send(userLine("fail please"));
    const result = await claude.next(isResult);
    claude.child.stdin.end();

    expect(result).toMatchObject({ is_error: true, api_error_status: 400, terminal_reason: "api_error" });
    expect(result.result).toContain("scripted bad request");
    // The CLI re-sends a rejected request several times with fewer betas/tools before giving up;
    // every one of them is matched by the same rule.
    const requests = messagesRequests(server);
    expect(requests.length).toBeGreaterThanOrEqual(1);
    expect(new Set(requests.map((r) => r.rule))).toEqual(new Set(["reject"]));
    expect(await claude.exit).toBe(1);
  });

  test("streaming: --include-partial-messages yields stream_event text_delta lines", async () => {
    const text = "Streaming works in several small pieces.";
    const { claude } = await setup(() => [{ when: whenUserSays("stream it"), reply: { text } }], ["--include-partial-messages"]);

    claude.send(userLine("stream it"));
    const result = await claude.next(isResult);
    claude.child.stdin.end();

    expect(result).toMatchObject({ is_error: false, result: text });
    const deltas = claude.messages
      .filter((m) => m.type === "stream_event")
      .map((m) => m.event as { type: string; delta?: { type: string; text?: string } })
      .filter((event) => event.type === "content_block_delta" && event.delta?.type === "text_delta")
      .map((event) => event.delta?.text ?? "");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(text);
  });

  test("slow turn: an interrupt during delayMs ends the turn, and the next prompt is answered at once", async () => {
    const { server, claude } = await setup(() => [
      { name: "slow", when: (view) => view.lastUserText === "take your time", reply: { text: "too late", delayMs: 20_000 } },
    ]);

    claude.send(userLine("take your time"));
    await claude.next((m) => m.type === "system" && m.subtype === "init");
    while (messagesRequests(server).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    claude.send({ type: "control_request", request_id: "int_1", request: { subtype: "interrupt" } });
    const interrupted = await claude.next(isResult);
    expect(interrupted).toMatchObject({ subtype: "error_during_execution", is_error: true });

    claude.send(userLine("and now?"));
    const result = await claude.next(isResult);
    claude.child.stdin.end();
    expect(result).toMatchObject({ is_error: false });
    expect(result.result).toMatch(/^Fake reply\. I saw 1 message\(s\); first user text: "take your time/);
    expect(messagesRequests(server).map((r) => r.rule)).toEqual(["slow", "directive"]);
  });
});
