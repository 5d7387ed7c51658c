import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import type { HookContext, StopHookInput, ToolCallHookInput, ToolResultHookInput } from "adaptor";
import { prewarmTurn } from "../support/prewarm.js";
import { harness, type Harness } from "./support.js";
import { Agent, InvalidOptionError, defineTool, mcpHttp, type AgentEvent } from "adaptor";
import { claude } from "@adaptor/claude";
import { MemoryThreadStore } from "@adaptor/threadstore";
import type { DriverRequest, DriverSink, HookAsk } from "@adaptor/driver";

// The `hooks` run option on the real claude binary: each hook is a CLI hook registered in the
// `initialize` control request and answered over `hook_callback`, so its verdict reaches the CLI
// before it goes on (the scripted model's request log shows what the model was sent).

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const approveAll = { approvals: { permission: "auto_approve" as const } };

/** The JSON text of a model request's last message. */
function lastMessageText(body: unknown): string {
  const messages = (body as { messages?: unknown[] } | undefined)?.messages ?? [];
  return JSON.stringify(messages.at(-1) ?? null);
}

describe("hooks (real binary)", { timeout: 180_000 }, () => {
  it("beforeToolCall: a denied call never runs and the model reads the hook's reason as its error result", async () => {
    let workDir = "";
    h = await harness([
      {
        when: whenUserSays("write the file"),
        reply: () => ({ toolUse: { name: "Write", input: { file_path: join(workDir, "out.txt"), content: "hi" } } }),
      },
      { when: whenToolResult("Write"), reply: { text: "could not write" } },
    ]);
    workDir = h.env.workDir;
    const seen: ToolCallHookInput[] = [];
    const result = await h.agent.run("write the file", {
      policy: approveAll,
      hooks: {
        beforeToolCall: (call, context: HookContext) => {
          seen.push(call);
          expect(context.native).toBe(true);
          return { deny: "no writes in this workspace" };
        },
      },
    });
    expect(result.text).toBe("could not write");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ toolName: "Write", input: { file_path: join(workDir, "out.txt"), content: "hi" } });
    expect(seen[0]!.toolCallId).toMatch(/^toolu_/);
    expect(existsSync(join(workDir, "out.txt"))).toBe(false);
    const denied = h.server.requests.find((request) => request.view.lastToolResult?.toolName === "Write");
    expect(denied?.view.lastToolResult?.isError).toBe(true);
    expect(denied?.view.lastToolResult?.content).toContain("no writes in this workspace");
  });

  it("beforeToolCall: an updatedInput runs in place of the proposed input", async () => {
    h = await harness([
      {
        when: whenUserSays("say something"),
        reply: { toolUse: { name: "Bash", input: { command: "echo proposed-text", description: "Say" } } },
      },
      { when: whenToolResult("Bash"), reply: (view) => ({ text: `the shell said ${view.lastToolResult?.content ?? ""}` }) },
    ]);
    const result = await h.agent.run("say something", {
      policy: approveAll,
      hooks: {
        beforeToolCall: (call) =>
          call.toolName === "Bash" ? { updatedInput: { command: "echo edited-by-hook", description: "Say" } } : undefined,
      },
    });
    expect(result.text).toContain("edited-by-hook");
    expect(result.text).not.toContain("proposed-text");
  });

  it("beforeToolCall: an additionalContext, with an updatedInput or alone in another group, reaches the model with the call's result", async () => {
    h = await harness([
      {
        when: whenUserSays("say something"),
        reply: { toolUse: { name: "Bash", input: { command: "echo proposed-text", description: "Say" } } },
      },
      { when: whenToolResult("Bash"), reply: (view) => ({ text: `the shell said ${view.lastToolResult?.content ?? ""}` }) },
    ]);
    const result = await h.agent.run("say something", {
      policy: approveAll,
      hooks: {
        beforeToolCall: [
          {
            matcher: "Bash",
            hook: () => ({ updatedInput: { command: "echo edited-by-hook", description: "Say" }, additionalContext: "PRE_CONTEXT_A" }),
          },
          { matcher: "*", hook: () => ({ additionalContext: "PRE_CONTEXT_B" }) },
        ],
      },
    });
    expect(result.text).toContain("edited-by-hook");
    const afterBash = h.server.requests.find((request) => request.view.lastToolResult?.toolName === "Bash");
    const sent = lastMessageText(afterBash?.body);
    expect(sent).toContain("PRE_CONTEXT_A");
    expect(sent).toContain("PRE_CONTEXT_B");
  });

  it("a matcher naming a host tool under another server's name (mcp__shop__refund) is refused before launch, naming mcp__adaptor__refund; the right name guards the tool", async () => {
    h = await harness([
      { when: whenUserSays("refund please"), reply: { toolUse: { name: "mcp__adaptor__refund", input: { amount: 500 } } } },
      { when: (view) => view.lastToolResult !== undefined, reply: (view) => ({ text: `result: ${view.lastToolResult?.content ?? ""}` }) },
    ]);
    let refunds = 0;
    const refund = defineTool({
      name: "refund",
      description: "refund money",
      input: { type: "object", properties: { amount: { type: "number" } } },
      needsApproval: false,
      handler: () => `refunded ${++refunds}`,
    });
    const agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
      tools: [refund],
    });
    try {
      const guard = { hook: () => ({ deny: "refunds need a manager" }) };
      const refused = await agent
        .run("refund please", {
          hooks: {
            beforeToolCall: [
              { matcher: "Bash", ...guard },
              { matcher: "mcp__shop__refund", ...guard },
            ],
          },
        })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(InvalidOptionError);
      expect(refused).toMatchObject({ field: "hooks.beforeToolCall[1].matcher" });
      expect((refused as Error).message).toContain("mcp__adaptor__refund");
      expect(h.server.requests).toHaveLength(0);
      // A declared MCP server of that name makes the matcher its tool's: accepted.
      const declared = await agent
        .run("say hi", {
          mcpServers: [mcpHttp("shop", "http://127.0.0.1:9/mcp")],
          hooks: { beforeToolCall: { matcher: "mcp__shop__refund", ...guard } },
        })
        .catch((e: unknown) => e);
      expect(declared).not.toBeInstanceOf(InvalidOptionError);
      const guarded = await agent.run("refund please", { hooks: { beforeToolCall: { matcher: "mcp__adaptor__refund", ...guard } } });
      expect(guarded.text).toContain("refunds need a manager");
      expect(refunds).toBe(0);
    } finally {
      await agent.close();
    }
  });

  it("a tool hook's matcher goes to the CLI: it stops only for the calls the matcher names, the others run without the hook", async () => {
    let workDir = "";
    h = await harness([
      {
        when: whenUserSays("list then write"),
        reply: { toolUse: { name: "Bash", input: { command: "echo listed", description: "List" } } },
      },
      {
        when: whenToolResult("Bash"),
        reply: () => ({ toolUse: { name: "Write", input: { file_path: join(workDir, "out.txt"), content: "hi" } } }),
      },
      { when: whenToolResult("Write"), reply: (view) => ({ text: `write said: ${String(view.lastToolResult?.content)}` }) },
    ]);
    workDir = h.env.workDir;
    // What the CLI asks the host (every hook_callback reaches DriverSink.hook).
    const asked: string[] = [];
    const driver = claude({ cwd: workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" });
    const recording = new Proxy(driver, {
      get(target, key) {
        if (key === "run")
          return (request: DriverRequest, sink: DriverSink, signal: AbortSignal) =>
            target.run(
              request,
              {
                ...sink,
                hook: (ask: HookAsk) => {
                  asked.push(`${ask.point} ${"toolName" in ask ? ask.toolName : ""}`);
                  return sink.hook!(ask);
                },
              },
              signal,
            );
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const agent = new Agent(recording);
    const before: string[] = [];
    const after: string[] = [];
    const result = await agent.run("list then write", {
      policy: approveAll,
      hooks: {
        // The SDK does not filter calls the CLI asks about: a hook called only for Write shows the CLI applied the matcher.
        beforeToolCall: {
          matcher: "Write|Edit",
          hook: (call) => {
            before.push(call.toolName);
            return { deny: "no writes here" };
          },
        },
        // A regular expression, found in the tool's name.
        afterToolCall: { matcher: "^Ba", hook: (call) => void after.push(`${call.toolName} ${JSON.stringify(call.output)}`) },
      },
    });
    await agent.close();
    expect(asked).toEqual(["afterToolCall Bash", "beforeToolCall Write"]);
    expect(before).toEqual(["Write"]);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatch(/^Bash .*listed/);
    expect(existsSync(join(workDir, "out.txt"))).toBe(false);
    expect(result.text).toContain("no writes here");
  });

  it("several matcher groups: each goes to the CLI as its own matcher; the groups a call matches are called in order, the first deny wins (later groups not called), else the last updatedInput runs, and every additionalContext reaches the model", async () => {
    let workDir = "";
    h = await harness([
      {
        when: whenUserSays("list then write"),
        reply: { toolUse: { name: "Bash", input: { command: "echo proposed", description: "List" } } },
      },
      {
        when: whenToolResult("Bash"),
        reply: () => ({ toolUse: { name: "Write", input: { file_path: join(workDir, "out.txt"), content: "hi" } } }),
      },
      { when: whenToolResult("Write"), reply: (view) => ({ text: `write said: ${String(view.lastToolResult?.content)}` }) },
    ]);
    workDir = h.env.workDir;
    // The groups the CLI asks the host about (each hook_callback names its group).
    const asked: string[] = [];
    const driver = claude({ cwd: workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" });
    const recording = new Proxy(driver, {
      get(target, key) {
        if (key === "run")
          return (request: DriverRequest, sink: DriverSink, signal: AbortSignal) =>
            target.run(
              request,
              {
                ...sink,
                hook: (ask: HookAsk) => {
                  if (ask.point === "beforeToolCall" || ask.point === "afterToolCall")
                    asked.push(`${ask.point} ${ask.toolName} ${ask.group}`);
                  return sink.hook!(ask);
                },
              },
              signal,
            );
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const agent = new Agent(recording);
    const called: string[] = [];
    const result = await agent.run("list then write", {
      policy: approveAll,
      hooks: {
        beforeToolCall: [
          { matcher: "Write", hook: (call) => (called.push(`0 ${call.toolName}`), { deny: "no writes (group 0)" }) },
          {
            matcher: "Bash|Write",
            hook: (call) => (called.push(`1 ${call.toolName}`), { updatedInput: { command: "echo from-group-1", description: "List" } }),
          },
          (call) => {
            called.push(`2 ${call.toolName}`);
            return { updatedInput: { command: "echo from-group-2", description: "List" } };
          },
        ],
        afterToolCall: [
          { matcher: "Bash", hook: () => ({ additionalContext: "context-of-group-0" }) },
          () => ({ additionalContext: "context-of-group-1" }),
        ],
      },
    });
    await agent.close();
    expect([...asked].sort()).toEqual(
      [
        "beforeToolCall Bash 1",
        "beforeToolCall Bash 2",
        "afterToolCall Bash 0",
        "afterToolCall Bash 1",
        "beforeToolCall Write 0",
        "beforeToolCall Write 1",
        "beforeToolCall Write 2",
      ].sort(),
    );
    expect(called).toEqual(["1 Bash", "2 Bash", "0 Write"]);
    const afterBash = h.server.requests.find((request) => request.view.lastToolResult?.toolName === "Bash");
    expect(afterBash?.view.lastToolResult?.content).toContain("from-group-2");
    const sent = lastMessageText(afterBash?.body);
    expect(sent).toContain("context-of-group-0");
    expect(sent).toContain("context-of-group-1");
    expect(existsSync(join(workDir, "out.txt"))).toBe(false);
    expect(result.text).toContain("no writes (group 0)");
  });

  it("afterToolCall: sees the tool's result, and its additionalContext reaches the next model request", async () => {
    let workDir = "";
    h = await harness([
      {
        when: whenUserSays("read the notes"),
        reply: () => ({ toolUse: { name: "Read", input: { file_path: join(workDir, "notes.txt") } } }),
      },
      { when: whenToolResult("Read"), reply: { text: "read them" } },
    ]);
    workDir = h.env.workDir;
    writeFileSync(join(workDir, "notes.txt"), "secret notes\n");
    const seen: ToolResultHookInput[] = [];
    const result = await h.agent.run("read the notes", {
      policy: approveAll,
      hooks: {
        afterToolCall: (call) => {
          seen.push(call);
          return { additionalContext: "HOOK-CONTEXT-AFTER-READ" };
        },
      },
    });
    expect(result.text).toBe("read them");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ toolName: "Read", isError: false, input: { file_path: join(workDir, "notes.txt") } });
    expect(JSON.stringify(seen[0]!.output)).toContain("secret notes");
    const next = h.server.requests.find((request) => request.view.lastToolResult?.toolName === "Read");
    expect(JSON.stringify(next?.body)).toContain("HOOK-CONTEXT-AFTER-READ");
  });

  it("afterToolCall: a failed call is seen with isError and its error text, and its additionalContext reaches the model too", async () => {
    h = await harness([
      {
        when: whenUserSays("fail a command"),
        reply: { toolUse: { name: "Bash", input: { command: "echo failing-output; exit 3", description: "Fail" } } },
      },
      { when: whenToolResult("Bash"), reply: { text: "it failed" } },
    ]);
    const seen: ToolResultHookInput[] = [];
    const result = await h.agent.run("fail a command", {
      policy: approveAll,
      hooks: {
        afterToolCall: (call) => {
          seen.push(call);
          return { additionalContext: "HOOK-CONTEXT-AFTER-FAILURE" };
        },
      },
    });
    expect(result.text).toBe("it failed");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ toolName: "Bash", isError: true, input: { command: "echo failing-output; exit 3" } });
    expect(String(seen[0]!.output)).toContain("failing-output");
    const next = h.server.requests.find((request) => request.view.lastToolResult?.toolName === "Bash");
    expect(JSON.stringify(next?.body)).toContain("HOOK-CONTEXT-AFTER-FAILURE");
  });

  it("onPromptSubmit: sees the prompt, and its additionalContext reaches the model with it", async () => {
    h = await harness([{ when: whenUserSays("hello there"), reply: { text: "hi" } }]);
    const prompts: string[] = [];
    const result = await h.agent.run("hello there", {
      hooks: {
        onPromptSubmit: ({ prompt }) => {
          prompts.push(prompt);
          return { additionalContext: "HOOK-CONTEXT-FOR-PROMPT" };
        },
      },
    });
    expect(result.text).toBe("hi");
    expect(prompts).toEqual(["hello there"]);
    const asked = h.server.requests.find((request) => request.view.firstUserText.includes("hello there") && request.rule !== undefined);
    expect(JSON.stringify(asked?.body)).toContain("HOOK-CONTEXT-FOR-PROMPT");
  });

  it("onStop: sees the last message; continueWith makes the agent go on with that message", async () => {
    h = await harness([
      // The CLI hands the model the hook's reason in a system reminder of the next request.
      { when: (view) => lastMessageText(view.raw).includes("keep going please"), reply: { text: "second answer" } },
      { when: whenUserSays("start"), reply: { text: "first answer" } },
    ]);
    const stops: StopHookInput[] = [];
    const result = await h.agent.run("start", {
      hooks: {
        onStop: (stop) => {
          stops.push(stop);
          return stop.continued ? undefined : { continueWith: "keep going please" };
        },
      },
    });
    expect(result.text).toBe("second answer");
    expect(stops).toEqual([{ text: "first answer" }, { text: "second answer", continued: true }]);
    expect(h.server.requests.filter((request) => lastMessageText(request.view.raw).includes("keep going please"))).toHaveLength(1);
  });

  it.each([undefined, "2"])(
    "onStop that always answers continueWith: at the CLI's block cap (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP %s, default 9) the run completes with the last assistant text, not an empty one",
    async (cap) => {
      let answers = 0;
      h = await harness([{ when: () => true, reply: () => ({ text: `answer ${++answers}` }) }]);
      let stops = 0;
      const result = await h.agent.run("start", {
        ...(cap ? { env: { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: cap } } : {}),
        hooks: { onStop: () => ({ continueWith: `again ${++stops}` }) },
      });
      // claude 2.1.332 asks the hook 9 times by default (its notice says 9 consecutive blocks), 3 times with the cap at 2.
      expect(stops).toBe(cap ? 3 : 9);
      expect(answers).toBe(stops);
      expect(result.status).toBe("completed");
      expect(result.text).toBe(`answer ${answers}`);
    },
  );

  it("a process pre-warmed with hooks registers them: a run with the same hook points takes it and its hook decides", async () => {
    h = await harness([
      { when: whenUserSays("list the files"), reply: { toolUse: { name: "Bash", input: { command: "ls", description: "List" } } } },
      { when: whenToolResult("Bash"), reply: (view) => ({ text: `result: ${view.lastToolResult?.content ?? ""}` }) },
    ]);
    const denied: string[] = [];
    const hooks = {
      beforeToolCall: (call: ToolCallHookInput) => {
        denied.push(call.toolName);
        return { deny: "denied by the pre-warmed hook" };
      },
    };
    expect(await h.agent.prewarm({ hooks, policy: approveAll })).toBe(1);
    // Another hook point set is another launch: it spawns and leaves the pre-warmed process waiting.
    const other = await prewarmTurn(h.agent.stream("say hi", { policy: approveAll, hooks: { onStop: () => undefined } }));
    expect(other).toMatchObject({ spawned: true, prewarmedPid: undefined });
    const turn = await prewarmTurn(h.agent.stream("list the files", { policy: approveAll, hooks }));
    expect(turn.spawned).toBe(false);
    expect(turn.prewarmedPid).toBeDefined();
    expect(turn.text).toContain("denied by the pre-warmed hook");
    expect(denied).toEqual(["Bash"]);
  });

  it("thread turns on one parked process: each turn's hooks are its own (the process keeps the registration)", async () => {
    h = await harness([
      { when: whenUserSays("first turn"), reply: { text: "one" } },
      { when: whenUserSays("second turn"), reply: { text: "two" } },
    ]);
    const agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
      threadStore: new MemoryThreadStore(),
    });
    try {
      const thread = agent.thread("hooked");
      const seen: string[] = [];
      const turn = async (prompt: string, tag: string): Promise<{ text: string; reused: boolean }> => {
        const stream = thread.stream(prompt, {
          hooks: {
            onPromptSubmit: ({ prompt: text }) => void seen.push(`${tag} prompt ${text}`),
            onStop: ({ text }) => void seen.push(`${tag} stop ${text ?? ""}`),
          },
        });
        let reused = false;
        for await (const event of stream as AsyncIterable<AgentEvent>) {
          if (event.type === "notice" && event.message === "process reused") reused = true;
        }
        return { text: (await stream.result()).text, reused };
      };
      expect(await turn("first turn", "A")).toEqual({ text: "one", reused: false });
      expect(await turn("second turn", "B")).toEqual({ text: "two", reused: true });
      expect(seen).toEqual(["A prompt first turn", "A stop one", "B prompt second turn", "B stop two"]);
    } finally {
      await agent.close();
    }
  });
});
