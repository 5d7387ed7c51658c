import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startChatCompletionsServer, whenChatToolResult, whenChatUserSays, type ChatCompletionsServer } from "@adaptor/testkit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, ErrPolicyViolation, ErrResumeRejected, isError, RunError, type AgentEvent, type RunOptions } from "adaptor";
import { acp } from "../src/index.js";
import { isolatedHome, policyNotices, processesWith, type IsolatedHome } from "./support.js";

// pi (the pi coding agent 0.73.1) through its ACP adapter pi-acp 0.0.24, the real binaries, offline
// against a scripted chat-completions server. pi never asks (no session/request_permission) and its
// session modes are thinking levels, so under a policy enforced by asks only the fail-closed rule
// stands between the model and the machine; pi-acp reports a shell command that exits non-zero `failed`.

const PI_ACP = fileURLToPath(new URL("../node_modules/pi-acp/dist/index.js", import.meta.url));
const PI = fileURLToPath(new URL("../node_modules/@mariozechner/pi-coding-agent/dist/cli.js", import.meta.url));

let server: ChatCompletionsServer;
let home: IsolatedHome;
let ws: string;
let env: Record<string, string>;
let agent: Agent | undefined;

beforeEach(async () => {
  home = await isolatedHome();
  ws = home.workDir;
  const piDir = join(home.home, ".pi", "agent");
  await mkdir(piDir, { recursive: true });
  server = await startChatCompletionsServer({
    rules: [
      { name: "after", when: whenChatToolResult("bash"), reply: { text: "done" } },
      {
        name: "failbash",
        when: whenChatUserSays("FAILBASH"),
        reply: { toolCall: { name: "bash", arguments: { command: `echo pwned > ${join(ws, "marker.txt")}; exit 3` } } },
      },
      {
        name: "slowbash",
        when: whenChatUserSays("SLOWBASH"),
        reply: { toolCall: { name: "bash", arguments: { command: `echo pwned > ${join(ws, "marker.txt")}; sleep 60` } } },
      },
    ],
  });
  // pi's model list: one OpenAI-compatible provider at the scripted server.
  await writeFile(
    join(piDir, "models.json"),
    JSON.stringify({
      providers: {
        fake: {
          baseUrl: `${server.url}/v1`,
          api: "openai-completions",
          apiKey: "dummy",
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [{ id: "fake-model" }],
        },
      },
    }),
  );
  await writeFile(
    join(piDir, "settings.json"),
    JSON.stringify({ defaultProvider: "fake", defaultModel: "fake-model", quietStartup: true }),
  );
  env = { ...home.env, PI_CODING_AGENT_DIR: piDir, PI_ACP_PI_COMMAND: PI };
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  expect(await processesWith(home.home)).toEqual([]);
  await home.cleanup();
});

const piAgent = (): Agent =>
  new Agent(
    acp({ type: "pi", displayName: "pi", command: process.execPath, args: [PI_ACP], cwd: ws, env, inheritEnv: false, askMode: "off" }),
    { threadStore: new MemoryThreadStore() },
  );

async function failBash(options: RunOptions): Promise<unknown> {
  agent = piAgent();
  const asked: string[] = [];
  const error = await agent
    .run("FAILBASH", { timeoutMs: 90_000, ...options, onApproval: (request) => (asked.push(String(request.toolName)), request.deny("no")) })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(asked).toEqual([]);
  return error;
}

describe("pi-acp 0.0.24 + pi 0.73.1 on the real binaries", () => {
  it("ask: a shell command that writes and exits non-zero (reported failed, never asked) fails the run with policy_violation", async () => {
    const error = await failBash({ policy: { approvals: { permission: "ask" } } });
    expect(isError(error, ErrPolicyViolation)).toBe(true);
    expect((error as RunError).message).toBe('bash (ACP kind other) ran without a permission ask under approvals.permission "ask"');
    expect((error as RunError).result.enforcement).toEqual([
      expect.objectContaining({ field: "approvals.permission", value: "ask", enforced: false }),
    ]);
    // It ran before the verdict: the rule reports the policy broken, it cannot undo the call.
    expect(existsSync(join(ws, "marker.txt"))).toBe(true);
  }, 120_000);

  it("read_only through askMode: the same command fails the run with sandbox not enforced", async () => {
    const error = await failBash({ policy: { sandbox: "read_only" } });
    expect(isError(error, ErrPolicyViolation)).toBe(true);
    expect((error as RunError).details).toMatchObject({ toolName: "bash", toolKind: "other", fields: ["sandbox"] });
    expect((error as RunError).result.enforcement).toEqual([
      expect.objectContaining({ field: "sandbox", value: "read_only", enforced: false }),
    ]);
  }, 120_000);

  it("ask: a shell command interrupted while it runs (reported in_progress, then failed) still fails the run with policy_violation", async () => {
    agent = piAgent();
    const marker = join(ws, "marker.txt");
    const asked: string[] = [];
    const stream = agent.stream("SLOWBASH", {
      timeoutMs: 90_000,
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => (asked.push(String(request.toolName)), request.deny("no")),
    });
    const events: AgentEvent[] = [];
    let interrupting: Promise<boolean> | undefined;
    for await (const event of stream) {
      events.push(event);
      // pi-acp reports the call pending while the model streams it and in_progress as pi runs it:
      // the call's end is the in_progress update. Once the command has written, the host interrupts.
      if (event.type === "tool-call" && event.phase === "end" && !interrupting) {
        await vi.waitFor(() => expect(existsSync(marker)).toBe(true), { timeout: 60_000, interval: 100 });
        interrupting = stream.interrupt();
      }
    }
    await interrupting;
    const error = await stream.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(asked).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ type: "tool-result", name: "bash", isError: true }));
    expect(isError(error, ErrPolicyViolation)).toBe(true);
    expect((error as RunError).message).toBe('bash (ACP kind other) ran without a permission ask under approvals.permission "ask"');
    expect((error as RunError).result.enforcement).toEqual([
      expect.objectContaining({ field: "approvals.permission", value: "ask", enforced: false }),
    ]);
    expect(policyNotices(events)).toHaveLength(1);
  }, 120_000);

  it("a session pi does not hold (answered invalid params, not resource-not-found): reading it and resuming it are both ErrResumeRejected", async () => {
    agent = piAgent();
    const unknown = await agent.getSessionMessages("no-such-session").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isError(unknown, ErrResumeRejected), String(unknown)).toBe(true);

    await agent.thread("chat").run("hello", { timeoutMs: 90_000 });
    // pi's session files and pi-acp's map of session ids to them: pi-acp no longer knows the id.
    await rm(join(home.home, ".pi", "agent", "sessions"), { recursive: true, force: true });
    await rm(join(home.home, ".pi", "pi-acp"), { recursive: true, force: true });
    const resumed = await agent
      .thread("chat", { resumeOnly: true })
      .run("again", { timeoutMs: 90_000, spawn: true })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isError(resumed, ErrResumeRejected), String(resumed)).toBe(true);
  }, 120_000);
});
