import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startChatCompletionsServer, whenChatUserSays, type ChatCompletionsServer, type ChatRequestView } from "@adaptor/testkit";
import {
  Agent,
  ErrPolicyViolation,
  HumanDecisionModeUnsupportedError,
  isError,
  PolicyCapabilityUnsupportedError,
  type RunOptions,
  type RunError,
} from "adaptor";
import { copilot, type CopilotConfig } from "../src/index.js";
import {
  collect,
  expectConfiningPoliciesRefused,
  hostEnvForEachTest,
  isolatedHome,
  policyNotices,
  processesWith,
  runDeciding,
  type DecidedRun,
  type IsolatedHome,
} from "./support.js";

// GitHub Copilot CLI 1.0.102 (the pinned platform binary, `copilot --acp`) through the copilot()
// preset, offline against a scripted chat-completions server (Copilot's own provider settings).

let cache: string;
let isolated: IsolatedHome;
let server: ChatCompletionsServer;
let root: string;
let ws: string;
/** A directory outside the working directory. */
let out: string;
/** The user's home (the root): its `.copilot` is Copilot's default config directory. */
let home: string;
let env: Record<string, string>;
let agent: Agent | undefined;
/** The tool names Copilot offered the model in its last request. */
let offered: readonly string[];

const shell = (file: string) => ({ toolCall: { name: "bash", arguments: { command: `echo x > ${file}`, description: "write a file" } } });

beforeAll(async () => {
  // Copilot unpacks its bundled package (about 235 MB) into its cache directory on first start: one per file.
  cache = await mkdtemp(join(tmpdir(), "acp-copilot-cache-"));
});

afterAll(async () => {
  await rm(cache, { recursive: true, force: true });
});

beforeEach(async () => {
  isolated = await isolatedHome();
  root = isolated.home;
  home = isolated.home;
  ws = isolated.workDir;
  out = join(root, "out");
  await mkdir(out);
  await mkdir(join(home, ".copilot"));
  offered = [];
  server = await startChatCompletionsServer({
    rules: [
      {
        name: "record the tools offered",
        when: (view: ChatRequestView) => {
          offered = view.toolNames;
          return false;
        },
        reply: { text: "" },
      },
      {
        name: "sub-agent",
        when: (view: ChatRequestView) => view.lastToolResult === undefined && /SUBTASK/.test(view.lastUserText),
        reply: shell(join(out, "sub.txt")),
      },
      { name: "shell", when: whenChatUserSays("SH now"), reply: shell(join(out, "sh.txt")) },
      { name: "hello", when: whenChatUserSays("HELLO now"), reply: { text: "hi there" } },
      { name: "unauthorized", when: whenChatUserSays("DENIED now"), reply: { error: { status: 401, message: "bad key" } } },
      {
        name: "todo",
        when: whenChatUserSays("TODO now"),
        reply: {
          toolCall: { name: "sql", arguments: { description: "add a todo", query: "INSERT INTO todos (id, title) VALUES ('a', 'b');" } },
        },
      },
      {
        name: "delegate",
        when: whenChatUserSays("DELEGATE now"),
        reply: {
          toolCall: {
            name: "task",
            arguments: { description: "sub job", prompt: "SUBTASK do it", agent_type: "general-purpose", name: "helper" },
          },
        },
      },
    ],
  });
  env = {
    ...isolated.env,
    XDG_CACHE_HOME: cache,
    COPILOT_OFFLINE: "true",
    COPILOT_PROVIDER_BASE_URL: `${server.url}/v1`,
    COPILOT_PROVIDER_API_KEY: "dummy",
    COPILOT_MODEL: "gpt-4o",
  };
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  expect(await processesWith(root)).toEqual([]);
  await isolated.cleanup();
});

function copilotAgent(extra: Partial<CopilotConfig> = {}): Agent {
  agent = new Agent(copilot({ cwd: ws, env, inheritEnv: false, copilotHome: join(root, "adaptor-copilot"), ...extra }));
  return agent;
}

const run = (a: Agent, prompt: string, options: RunOptions): Promise<DecidedRun> =>
  runDeciding(
    a,
    prompt,
    options,
    (request) => request.deny("no"),
    (request) => String(request.details?.["toolKind"] ?? request.toolName),
  );

describe("copilot 1.0.102: the basics of ask, auto_deny and read_only", () => {
  it('approvals.permission "ask": its shell command is asked, and denied it does not run', async () => {
    const { asked, error } = await run(copilotAgent(), "SH now", { policy: { approvals: { permission: "ask" } } });
    expect(error).toBeUndefined();
    expect(asked).toEqual(["execute"]);
    expect(existsSync(join(out, "sh.txt"))).toBe(false);
  });

  it('approvals.permission "auto_deny": its shell command is denied without reaching the handler', async () => {
    const { asked, error } = await run(copilotAgent(), "SH now", { policy: { approvals: { permission: "auto_deny" } } });
    expect(error).toBeUndefined();
    expect(asked).toEqual([]);
    expect(existsSync(join(out, "sh.txt"))).toBe(false);
  });

  it("read_only: its shell command's ask is denied unasked, and the result reports read_only enforced", async () => {
    const stream = copilotAgent().stream("SH now", { policy: { sandbox: "read_only" }, onApproval: (r) => r.approve() });
    const events = await collect(stream);
    const result = await stream.result();
    expect(policyNotices(events)).toEqual([
      expect.stringMatching(/^denied without asking: the run's sandbox is read_only; .* is not a read$/),
    ]);
    expect(result.enforcement).toEqual([expect.objectContaining({ field: "sandbox", value: "read_only", enforced: true })]);
    expect(existsSync(join(out, "sh.txt"))).toBe(false);
  });
});

describe("copilot 1.0.102: COPILOT_ALLOW_ALL under a confining policy", () => {
  hostEnvForEachTest("COPILOT_ALLOW_ALL", () => "true");

  it("inherited from the host's environment, it is removed under read_only (with a notice): the shell write is asked, denied, not run", async () => {
    const { events, error } = await run(copilotAgent({ inheritEnv: ["COPILOT_ALLOW_ALL"] }), "SH now", {
      policy: { sandbox: "read_only" },
    });
    expect(error).toBeUndefined();
    expect(policyNotices(events)).toEqual([
      expect.stringMatching(/^COPILOT_ALLOW_ALL \(inherited from the host's environment\) removed from GitHub Copilot CLI's environment/),
      expect.stringMatching(/^denied without asking: the run's sandbox is read_only/),
    ]);
    expect(existsSync(join(out, "sh.txt"))).toBe(false);
  });

  it('inherited, it is removed under "ask" too: the shell command reaches the handler', async () => {
    const { asked, error } = await run(copilotAgent({ inheritEnv: ["COPILOT_ALLOW_ALL"] }), "SH now", {
      policy: { approvals: { permission: "ask" } },
    });
    expect(error).toBeUndefined();
    expect(asked).toEqual(["execute"]);
    expect(existsSync(join(out, "sh.txt"))).toBe(false);
  });

  it("set by the host in env, read_only and ask are refused before launch", async () => {
    await expectConfiningPoliciesRefused(copilotAgent({ env: { ...env, COPILOT_ALLOW_ALL: "true" } }), "SH now");
    expect(existsSync(join(out, "sh.txt"))).toBe(false);
  });
});

describe("copilot 1.0.102: the workspace's own config", () => {
  beforeEach(async () => {
    // A cloned repository's MCP server, and the user's Copilot config trusting the folder (what
    // answering Copilot's own "trust this folder?" prompt stores).
    const server = { command: "sh", args: ["-c", `touch ${join(out, "mcp-ran")}; sleep 1`] };
    await writeFile(join(ws, ".mcp.json"), JSON.stringify({ mcpServers: { evil: server } }));
    await writeFile(join(home, ".copilot", "config.json"), JSON.stringify({ trusted_folders: [ws], trustedFolders: [ws] }));
  });

  it("a folder the user's ~/.copilot trusts: its .mcp.json server does not start under ask", async () => {
    const { error } = await run(copilotAgent(), "HELLO", { policy: { approvals: { permission: "ask" } } });
    expect(error).toBeUndefined();
    expect(existsSync(join(out, "mcp-ran"))).toBe(false);
  });

  it("workspaceSettings: the user's trust applies (the server starts), and ask and read_only are refused before launch", async () => {
    const a = copilotAgent({ workspaceSettings: true, copilotHome: join(home, ".copilot") });
    const ask = await a
      .run("HELLO", { policy: { approvals: { permission: "ask" } }, onApproval: (r) => r.deny("no") })
      .catch((e: unknown) => e);
    expect(ask).toBeInstanceOf(HumanDecisionModeUnsupportedError);
    const readOnly = await a.run("HELLO", { policy: { sandbox: "read_only" } }).catch((e: unknown) => e);
    expect(readOnly).toBeInstanceOf(PolicyCapabilityUnsupportedError);
    await a.run("HELLO");
    expect(await readdir(out)).toEqual(["mcp-ran"]);
  });
});

describe("copilot 1.0.102: its tools that run without an ask are not offered under a confining policy", () => {
  it.each([
    ["read_only", { sandbox: "read_only" }],
    ["ask", { approvals: { permission: "ask" } }],
    ["auto_deny", { approvals: { permission: "auto_deny" } }],
  ] as const)("under %s, the model is offered neither sql nor task, and the run succeeds", async (_name, policy) => {
    const { error } = await run(copilotAgent(), "HELLO", { policy });
    expect(error).toBeUndefined();
    expect(offered).toContain("bash");
    expect(offered).not.toContain("sql");
    expect(offered).not.toContain("task");
  });

  it("without a policy both are offered, and a sql todo update runs unasked", async () => {
    const stream = copilotAgent().stream("TODO now");
    const events = await collect(stream);
    await stream.result();
    expect(offered).toEqual(expect.arrayContaining(["sql", "task"]));
    expect(events).toContainEqual(expect.objectContaining({ type: "tool-result", name: "add a todo", isError: false }));
  });

  it("a model that names task although it was not offered: Copilot refuses the call, and the run fails as unasked (the driver cannot tell)", async () => {
    const { error } = await run(copilotAgent(), "DELEGATE now", { policy: { approvals: { permission: "auto_deny" } } });
    expect(isError(error, ErrPolicyViolation)).toBe(true);
    expect(await readdir(out)).toEqual([]);
  });
});

describe("copilot 1.0.102: its own Info: and Error: lines are not the model's text", () => {
  it("read_only: the text is the model's alone, and Copilot's disabled-tools line is a notice", async () => {
    const stream = copilotAgent().stream("HELLO now", { policy: { sandbox: "read_only" } });
    const events = await collect(stream);
    const result = await stream.result();
    expect(result.text).toBe("hi there");
    expect(events.flatMap((e) => (e.type === "text-delta" ? [e.text] : []))).toEqual(["hi there"]);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "notice",
        kind: "runtime",
        message: "Info: Disabled tools: sql, task",
        data: { agentNotice: "info" },
      }),
    );
  });

  it("HTTP 401 from the model: RunError agent_error with Copilot's error line and the status", async () => {
    const { events, error } = await run(copilotAgent(), "DENIED now", { policy: { approvals: { permission: "ask" } } });
    expect((error as RunError).reason).toBe("agent_error");
    expect((error as RunError).message).toMatch(
      /^Error: Authentication failed with provider at http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 401\)/,
    );
    expect((error as RunError).details).toMatchObject({ apiErrorStatus: 401, stopReason: "end_turn" });
    expect((error as RunError).result.text).toBe("");
    expect(events.filter((e) => e.type === "text-delta")).toEqual([]);
  });
});
