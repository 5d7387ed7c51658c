import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startChatCompletionsServer, whenChatUserSays, type ChatCompletionsServer, type ChatRequestView } from "@adaptor/testkit";
import { Agent, ErrPolicyViolation, isError, RunError, type RunOptions } from "adaptor";
import { acp, type AcpConfig } from "../src/index.js";
import { policyNotices, processesWith, runDeciding, type DecidedRun } from "./support.js";

// Cline CLI 3.0.65 (`cline --acp`, the real binary), offline against a scripted chat-completions
// server. Cline labels its `spawn_agent` tool (a sub-agent with the full tool set) ACP kind `think`,
// and the sub-agent's own tool calls run without a permission ask.

const CLINE = fileURLToPath(new URL("../node_modules/cline/bin/cline", import.meta.url));

let server: ChatCompletionsServer;
let root: string;
let ws: string;
/** A directory outside the working directory. */
let out: string;
let env: Record<string, string>;
let agent: Agent | undefined;

/** The model's script: `SPAWN` starts a sub-agent, whose task runs a shell command writing `out/sub.txt`; `SH` writes `out/sh.txt`. */
const shell = (file: string) => ({ toolCall: { name: "run_commands", arguments: { commands: [`sh -c 'echo x > ${file}'`] } } });

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "acp-cline-"));
  ws = join(root, "ws");
  out = join(root, "out");
  const home = join(root, "home");
  await mkdir(join(home, ".cline", "data", "settings"), { recursive: true });
  await mkdir(ws);
  await mkdir(out);
  server = await startChatCompletionsServer({
    rules: [
      {
        name: "sub-agent",
        when: (view: ChatRequestView) =>
          view.lastToolResult === undefined && /SUBTASK/.test(view.lastUserText) && !/SPAWN/.test(view.lastUserText),
        reply: shell(join(out, "sub.txt")),
      },
      {
        name: "spawn",
        when: whenChatUserSays("SPAWN"),
        reply: { toolCall: { name: "spawn_agent", arguments: { systemPrompt: "You are a helper.", task: "SUBTASK do it" } } },
      },
      { name: "shell", when: whenChatUserSays("SH now"), reply: shell(join(out, "sh.txt")) },
    ],
  });
  // Cline's provider settings: an OpenAI-compatible provider at the scripted server.
  await writeFile(
    join(home, ".cline", "data", "settings", "providers.json"),
    JSON.stringify({
      version: 1,
      lastUsedProvider: "openai-compatible",
      providers: {
        "openai-compatible": {
          settings: { provider: "openai-compatible", apiKey: "dummy", model: "fake-model", baseUrl: `${server.url}/v1` },
          updatedAt: new Date().toISOString(),
          tokenSource: "manual",
        },
      },
    }),
  );
  env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    TMPDIR: root,
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    HTTPS_PROXY: "http://127.0.0.1:9",
    HTTP_PROXY: "http://127.0.0.1:9",
    NO_PROXY: "127.0.0.1",
    // Without an API key in the environment `session/new` fails "Authentication required".
    CLINE_API_KEY: "dummy",
    CLINE_PROVIDER: "openai-compatible",
    CLINE_MODEL: "fake-model",
  };
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  expect(await processesWith(root)).toEqual([]);
  await rm(root, { recursive: true, force: true });
});

function cline(extra: Partial<AcpConfig> = {}): Agent {
  agent = new Agent(
    acp({
      type: "cline",
      displayName: "Cline",
      command: CLINE,
      args: ["--acp"],
      cwd: ws,
      env,
      inheritEnv: false,
      askMode: "act",
      ...extra,
    }),
  );
  return agent;
}

/** Runs `prompt`, approving the asks whose tool name matches `approve` and denying the rest. */
const run = (a: Agent, prompt: string, options: RunOptions, approve: RegExp): Promise<DecidedRun> =>
  runDeciding(a, prompt, options, (request) => {
    if (approve.test(String(request.toolName))) request.approve();
    else request.deny("not that one");
  });

describe("cline 3.0.65 under policies enforced by asks", () => {
  it("read_only through askMode: the think-kind spawn_agent ask is denied unasked; the sub-agent never writes outside the workspace", async () => {
    const { events, asked, error } = await run(
      cline(),
      "SPAWN now",
      { policy: { sandbox: "read_only", approvals: { permission: "auto_approve" } } },
      /spawn_agent/,
    );
    expect(error).toBeUndefined();
    expect(asked).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ type: "tool-call", phase: "end", kind: "think" }));
    expect(policyNotices(events)).toEqual([
      expect.stringMatching(/^denied without asking: the run's sandbox is read_only; spawn_agent.* is not a read$/),
    ]);
    expect(existsSync(join(out, "sub.txt"))).toBe(false);
  });

  it("read_only with cline's plan mode declared: its run_commands ask is denied unasked, auto_approve aside", async () => {
    const { events, error } = await run(
      cline({ sandboxModes: { read_only: "plan" } }),
      "SH now",
      { policy: { sandbox: "read_only", approvals: { permission: "auto_approve" } } },
      /.*/,
    );
    expect(error).toBeUndefined();
    expect(policyNotices(events)).toEqual([
      expect.stringMatching(/^denied without asking: the run's sandbox is read_only; .* is not a read$/),
    ]);
    expect(existsSync(join(out, "sh.txt"))).toBe(false);
  });

  it('approvals.permission "ask": the sub-agent\'s shell command runs unasked, and the run fails with ErrPolicyViolation', async () => {
    const { events, asked, error } = await run(cline(), "SPAWN now", { policy: { approvals: { permission: "ask" } } }, /spawn_agent/);
    expect(asked).toEqual([expect.stringMatching(/^spawn_agent/)]);
    expect(isError(error, ErrPolicyViolation)).toBe(true);
    const failure = error as RunError;
    expect(failure.details).toMatchObject({ toolKind: "execute", fields: ["approvals.permission"] });
    expect(failure.message).toMatch(/\(ACP kind execute\) ran without a permission ask under approvals\.permission "ask"$/);
    expect(failure.result.enforcement).toEqual([
      expect.objectContaining({ field: "approvals.permission", value: "ask", enforced: false, mechanisms: [] }),
    ]);
    expect(policyNotices(events)).toEqual([`ending the turn: ${failure.message}`]);
  });

  it("a run the SDK stops (the handler returns without deciding): RunError.result.enforcement is the driver's report", async () => {
    const error = await cline()
      .run("SH now", { policy: { approvals: { permission: "ask" } }, onApproval: () => undefined })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).message).toMatch(/returned without deciding/);
    expect((error as RunError).result.enforcement).toEqual([
      expect.objectContaining({
        field: "approvals.permission",
        value: "ask",
        enforced: true,
        mechanisms: ["agent_mode", "approval", "host_capability"],
      }),
    ]);
    expect(existsSync(join(out, "sh.txt"))).toBe(false);
  });
});
