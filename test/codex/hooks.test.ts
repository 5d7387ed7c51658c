import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays, whenToolOutput } from "@adaptor/testkit";
import {
  Agent,
  FeatureUnsupportedError,
  findError,
  isError,
  ErrFeatureUnsupported,
  type HookContext,
  type StopHookInput,
  type ToolResultHookInput,
} from "adaptor";
import { codex } from "@adaptor/codex";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { codexHarness, type CodexHarness } from "./support.js";

// The `hooks` run option on the real codex binary. Over app-server the driver waits for two hooks
// itself: `onPromptSubmit` before it sends the prompt (`turn/start`, `turn/steer`), whose
// `additionalContext` is a developer message put into the thread's history ahead of the prompt; `onStop` at each completed turn, whose
// `continueWith` is another `turn/start` on the thread within the same run. Codex's own command
// hooks (config-file hooks run as a process per event, behind hook trust) are not bridged, and codex
// waits for the host only for some commands and file changes: `afterToolCall` observes each tool
// result (a verdict ends the run with FeatureUnsupportedError), `beforeToolCall` is refused before
// launch. On exec, whose process has ended before a stop hook could answer, `onStop` is refused
// before launch; `onPromptSubmit` is observed before launch, so its verdict fails before any work.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const shell = (cmd: string) => ({ functionCall: { name: "exec_command", arguments: { cmd } } });

describe("hooks on codex (real binary)", { timeout: 180_000 }, () => {
  it.each([
    ["app-server", [true, false, true]],
    ["exec", [false, false]],
  ] as const)(
    "%s: afterToolCall sees each call with its result, onPromptSubmit the prompt, onStop (app-server) the final text",
    async (transport, natives) => {
      h = await codexHarness({
        rules: [
          { when: whenPromptSays("run the command"), reply: shell("echo hook-visible-output") },
          { when: whenToolOutput("exec_command", "hook-visible-output"), reply: { text: "it ran" } },
        ],
      });
      // exec asks nothing: its commands run under the sandbox alone.
      agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport }), {
        policy: transport === "exec" ? { sandbox: "unrestricted" } : { sandbox: "unrestricted", approvals: { permission: "auto_approve" } },
      });
      const order: string[] = [];
      const calls: ToolResultHookInput[] = [];
      const contexts: HookContext[] = [];
      const result = await agent.run("run the command", {
        hooks: {
          onPromptSubmit: ({ prompt }, context) => {
            order.push(`prompt:${prompt}`);
            contexts.push(context);
          },
          afterToolCall: (call, context) => {
            order.push(`tool:${call.toolName}`);
            calls.push(call);
            contexts.push(context);
          },
          ...(transport === "app-server"
            ? {
                onStop: ({ text, continued }: StopHookInput, context: HookContext) => {
                  order.push(`stop:${text ?? ""}:${String(continued)}`);
                  contexts.push(context);
                },
              }
            : {}),
        },
      });
      expect(result.text).toBe("it ran");
      expect(order).toEqual([
        "prompt:run the command",
        `tool:${calls[0]?.toolName}`,
        ...(transport === "app-server" ? ["stop:it ran:undefined"] : []),
      ]);
      expect(calls).toHaveLength(1);
      expect(calls[0]!.isError).toBe(false);
      expect(String(calls[0]!.output)).toContain("hook-visible-output");
      expect(JSON.stringify(calls[0]!.input)).toContain("echo hook-visible-output");
      expect(contexts.map((context) => context.native)).toEqual(natives);
      expect(contexts.every((context) => context.signal.aborted)).toBe(true); // the run is over
    },
  );

  it("app-server: onPromptSubmit's additionalContext reaches the model as a developer message right before the prompt; the session's title and first prompt are the user's", async () => {
    h = await codexHarness({ rules: [{ when: whenPromptSays("what is the code word"), reply: { text: "noted" } }] });
    agent = new Agent(h.driver);
    const result = await agent.run("what is the code word", {
      hooks: { onPromptSubmit: ({ prompt }) => ({ additionalContext: `context for: ${prompt}` }) },
    });
    expect(result.text).toBe("noted");
    expect(h.server.requests).toHaveLength(1);
    const input = (h.server.requests[0]!.body as { input: { role?: string; content?: { text?: string }[] }[] }).input;
    expect(input.slice(-2).map((item) => [item.role, item.content?.map((part) => part.text)])).toEqual([
      ["developer", ["context for: what is the code word"]],
      ["user", ["what is the code word"]],
    ]);
    expect(result.transcript().filter((item) => item.kind === "user")).toEqual([{ kind: "user", text: "what is the code word" }]);
    const page = await agent.listSessions({ cwd: h.env.workDir });
    expect(page.sessions.map((s) => [s.title, s.firstPrompt])).toEqual([["what is the code word", "what is the code word"]]);
    const messages = await agent.getSessionMessages(page.sessions[0]!.sessionId);
    expect(messages.messages.filter((m) => m.role === "user").map((m) => m.text)).toEqual(["what is the code word"]);
  });

  it("app-server: onStop's continueWith is another turn on the same thread in the same run; the Result has both turns' events and usage", async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("keep going please"), reply: { text: "second answer" } },
        { when: whenPromptSays("start"), reply: { text: "first answer" } },
      ],
    });
    agent = new Agent(h.driver);
    const stops: StopHookInput[] = [];
    const stream = agent.stream("start", {
      hooks: {
        onStop: (stop) => {
          stops.push(stop);
          return stop.continued ? undefined : { continueWith: "keep going please" };
        },
      },
    });
    const responses: { inputTokens: number; outputTokens: number }[] = [];
    const turns: unknown[] = [];
    for await (const event of stream) {
      if (event.type === "notice" && event.kind === "model.response")
        responses.push((event.data as { usage: { inputTokens: number; outputTokens: number } }).usage);
      if (event.type === "notice" && event.kind === "lifecycle" && event.message === "turn completed") turns.push(event.data);
    }
    const result = await stream.result();
    expect(result.text).toBe("second answer");
    expect(stops).toEqual([{ text: "first answer" }, { text: "second answer", continued: true }]);
    expect(turns).toHaveLength(2);
    // The second model call continues the first's conversation: same thread, the hook's text as the user's.
    expect(h.server.requests.map((request) => request.view.userTexts)).toEqual([["start"], ["start", "keep going please"]]);
    expect(responses).toHaveLength(2);
    expect(result.usage?.inputTokens).toBe(responses[0]!.inputTokens + responses[1]!.inputTokens);
    expect(result.usage?.outputTokens).toBe(responses[0]!.outputTokens + responses[1]!.outputTokens);
    expect(
      result
        .transcript()
        .filter((item) => item.kind === "assistant")
        .map((item) => item.text),
    ).toEqual(["first answer", "second answer"]);
  });

  it("app-server: a run cancelled while its onStop hook works rejects with the abort reason: no further turn starts, the hook's answer is dropped", async () => {
    h = await codexHarness({ rules: [{ when: whenPromptSays("start"), reply: { text: "first answer" } }] });
    agent = new Agent(h.driver);
    const cancel = new AbortController();
    let hookSignal: AbortSignal | undefined;
    const failed = await agent
      .run("start", {
        signal: cancel.signal,
        hooks: {
          onStop: async (_, context) => {
            hookSignal = context.signal;
            cancel.abort();
            return { continueWith: "never sent" };
          },
        },
      })
      .catch((e: unknown) => e);
    // The run rejects with the host's own abort reason.
    expect(failed).toBe(cancel.signal.reason);
    expect(hookSignal?.aborted).toBe(true);
    expect(h.server.requests.map((request) => request.view.userTexts)).toEqual([["start"]]);
  });

  it("app-server: a thread turn that went on over continueWith commits its last turn: the next turn, in a new process, continues after it", async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("keep going please"), reply: { text: "second answer" } },
        { when: whenPromptSays("next turn"), reply: { text: "third answer" } },
        { when: whenPromptSays("start"), reply: { text: "first answer" } },
      ],
    });
    agent = new Agent(h.driver, { threadStore: new MemoryThreadStore() });
    const thread = agent.thread("chat");
    const first = await thread.run("start", {
      hooks: { onStop: ({ continued }) => (continued ? undefined : { continueWith: "keep going please" }) },
    });
    expect(first.text).toBe("second answer");
    const next = await thread.run("next turn", { spawn: true });
    expect(next.text).toBe("third answer");
    expect(h.server.requests.at(-1)!.view.userTexts).toEqual(["start", "keep going please", "next turn"]);
  });

  it("app-server: an onStop that always answers continueWith is asked 9 times; the 9th is not carried and the run completes with the last answer", async () => {
    let answers = 0;
    h = await codexHarness({ rules: [{ when: () => true, reply: () => ({ text: `answer ${++answers}` }) }] });
    agent = new Agent(h.driver);
    let stops = 0;
    const stream = agent.stream("start", { hooks: { onStop: () => ({ continueWith: `again ${++stops}` }) } });
    const capped: unknown[] = [];
    for await (const event of stream) {
      if (
        event.type === "notice" &&
        event.kind === "runtime" &&
        (event.data as { key?: unknown } | undefined)?.key === "stop-hook-block-cap"
      )
        capped.push(event.data);
    }
    const result = await stream.result();
    expect(stops).toBe(9);
    expect(answers).toBe(9);
    expect(result.status).toBe("completed");
    expect(result.text).toBe("answer 9");
    expect(capped).toEqual([{ key: "stop-hook-block-cap", limit: 9 }]);
  });

  it("exec: onStop is refused before launch with FeatureUnsupportedError (feature hooks.onStop)", async () => {
    await using refusing = new Agent(codex({ command: "/nonexistent/codex", transport: "exec" }));
    const refused = await refusing.run("hi", { hooks: { onStop: () => undefined } }).catch((e: unknown) => e);
    expect(isError(refused, ErrFeatureUnsupported)).toBe(true);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature: "hooks.onStop" });
  });

  it("exec: onPromptSubmit's additionalContext ends the run with FeatureUnsupportedError before codex is launched", async () => {
    await using refusing = new Agent(codex({ command: "/nonexistent/codex", transport: "exec" }));
    const refused = await refusing
      .run("hi", { hooks: { onPromptSubmit: () => ({ additionalContext: "cannot be carried" }) } })
      .catch((e: unknown) => e);
    // Not a NOT_FOUND DriverError: the executable was never looked for.
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature: "hooks.onPromptSubmit" });
  });

  it("an observing afterToolCall that answers with additionalContext ends the run with FeatureUnsupportedError", async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("run the command"), reply: shell("echo hook-visible-output") },
        { when: whenToolOutput("exec_command", "hook-visible-output"), reply: { text: "it ran" } },
      ],
    });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000 }), {
      policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve" } },
    });
    const failed = await agent
      .run("run the command", { hooks: { afterToolCall: () => ({ additionalContext: "cannot be carried" }) } })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toContain("hook afterToolCall failed");
    expect(isError(failed, ErrFeatureUnsupported)).toBe(true);
    expect(findError(failed, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature: "hooks.afterToolCall" });
  });

  it("app-server: an observing afterToolCall with a matcher is called only for the tool results it names", async () => {
    h = await codexHarness({
      rules: [
        { when: whenPromptSays("run the command"), reply: shell("echo matched-output") },
        { when: whenToolOutput("exec_command", "matched-output"), reply: { text: "it ran" } },
      ],
    });
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000 }), {
      policy: { sandbox: "unrestricted", approvals: { permission: "auto_approve" } },
    });
    const named: string[] = [];
    const other: string[] = [];
    const stream = agent.stream("run the command", {
      hooks: { afterToolCall: { matcher: "^mcp__", hook: (call) => void other.push(call.toolName) } },
    });
    // The shell call's name as the agent calls it (the event's tool name).
    let shellName = "";
    for await (const event of stream) if (event.type === "tool-call") shellName = event.name;
    expect((await stream.result()).text).toBe("it ran");
    expect(other).toEqual([]);
    expect(shellName).not.toBe("");
    await agent.run("run the command", {
      hooks: { afterToolCall: { matcher: shellName, hook: (call) => void named.push(call.toolName) } },
    });
    expect(named).toEqual([shellName]);
  });

  it.each(["onSessionStart", "onSessionEnd", "onNotification", "onPreCompact", "onSubagentStart", "onSubagentStop"] as const)(
    "%s is refused before launch with FeatureUnsupportedError naming it, on both transports",
    async (name) => {
      for (const transport of ["app-server", "exec"] as const) {
        await using refusing = new Agent(codex({ command: "/nonexistent/codex", transport }));
        const refused = await refusing.run("hi", { hooks: { [name]: () => undefined } }).catch((e: unknown) => e);
        expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature: `hooks.${name}` });
      }
    },
  );

  it.each(["app-server", "exec"] as const)(
    "%s: beforeToolCall is refused before launch with FeatureUnsupportedError",
    async (transport) => {
      await using refusing = new Agent(codex({ command: "/nonexistent/codex", transport }));
      const refused = await refusing.run("hi", { hooks: { beforeToolCall: () => undefined } }).catch((e: unknown) => e);
      expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature: "hooks.beforeToolCall" });
    },
  );
});
