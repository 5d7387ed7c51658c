import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startChatCompletionsServer, whenChatToolResult, whenChatUserSays } from "@adaptor/testkit";
import { Agent, type AgentEvent } from "adaptor";
import { codebuddy, codebuddyArgs } from "../src/index.js";
import { CODEBUDDY_BIN, codebuddyTestEnv, SCRIPTED_MODEL } from "./support.js";

// The CodeBuddy driver through the SDK, on the real `codebuddy` CLI with a scripted model.

describe("codebuddy driver (real CLI, scripted model)", () => {
  it("the argv carries the model, the resumed session, the system prompt and the permission flag; never the prompt", () => {
    expect(
      codebuddyArgs(
        { model: "m" },
        {
          runId: "r",
          prompt: "secret prompt",
          session: { resumeId: "s-1", fork: true },
          systemPrompt: { mode: "append", text: "be brief" },
        },
      ),
    ).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--include-partial-messages",
      "--model",
      "m",
      "--resume",
      "s-1",
      "--fork-session",
      "--append-system-prompt",
      "be brief",
      "--setting-sources",
      "user",
    ]);
    expect(codebuddyArgs({}, { runId: "r", prompt: "p", policy: { approvals: { permission: "auto_approve" } } })).toContain(
      "--dangerously-skip-permissions",
    );
  });

  it("a prompt on stdin reaches the model; its answer streams as text deltas and is the result, with the session id as checkpoint", async () => {
    await using server = await startChatCompletionsServer({
      rules: [{ when: whenChatUserSays("hello there"), reply: { text: "Hi from the scripted model." } }],
    });
    await using env = codebuddyTestEnv(server);
    await using agent = new Agent(
      codebuddy({ command: CODEBUDDY_BIN, model: SCRIPTED_MODEL, cwd: env.workDir, env: env.env, inheritEnv: false }),
    );
    const events: AgentEvent[] = [];
    const stream = agent.stream("hello there");
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(result.text).toBe("Hi from the scripted model.");
    expect(
      events
        .filter((e) => e.type === "text-delta")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toBe("Hi from the scripted model.");
    expect(server.turns().some((t) => t.lastUserText.includes("hello there"))).toBe(true);
  });

  it("a Write tool call runs under auto_approve (tool-call and tool-result events) and is denied under inherit, print mode having no one to ask", async () => {
    await using server = await startChatCompletionsServer({
      rules: [
        {
          when: whenChatUserSays(/WRITE_IT ([^\s<]+)/),
          reply: (view) => ({
            toolCall: { name: "Write", arguments: { file_path: /WRITE_IT ([^\s<]+)/.exec(view.lastUserText)![1]!, content: "hi\n" } },
          }),
        },
        { when: whenChatToolResult("Write"), reply: (view) => ({ text: `tool said: ${view.lastToolResult!.content.slice(0, 80)}` }) },
      ],
    });
    await using env = codebuddyTestEnv(server);
    await using agent = new Agent(
      codebuddy({ command: CODEBUDDY_BIN, model: SCRIPTED_MODEL, cwd: env.workDir, env: env.env, inheritEnv: false }),
    );
    const target = join(env.workDir, "out.txt");
    const events: AgentEvent[] = [];
    const stream = agent.stream(`WRITE_IT ${target}`, { policy: { approvals: { permission: "auto_approve" } } });
    for await (const event of stream) events.push(event);
    expect((await stream.result()).enforcement).toEqual([
      {
        field: "approvals.permission",
        value: "auto_approve",
        enforced: true,
        mechanisms: ["cli_flag"],
        detail: "--dangerously-skip-permissions",
      },
    ]);
    expect(readFileSync(target, "utf8")).toBe("hi\n");
    expect(events.find((e) => e.type === "tool-call" && e.phase === "end")).toMatchObject({ name: "Write", input: { file_path: target } });
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ name: "Write", isError: false });

    const refused = join(env.workDir, "refused.txt");
    const inherit: AgentEvent[] = [];
    const second = agent.stream(`WRITE_IT ${refused}`);
    for await (const event of second) inherit.push(event);
    await second.result();
    expect(existsSync(refused)).toBe(false);
    // codebuddy 2.117.0 reports the refusal as the tool's output, without `is_error` on the block.
    const denial = inherit.find((e) => e.type === "tool-result");
    expect(denial).toMatchObject({ name: "Write" });
    expect((denial as { output: string }).output).toContain("Permission to use Write has been denied");
  });

  it("a system prompt replaces or is appended to the CLI's own, as the model's system message shows", async () => {
    await using server = await startChatCompletionsServer();
    await using env = codebuddyTestEnv(server);
    await using agent = new Agent(
      codebuddy({ command: CODEBUDDY_BIN, model: SCRIPTED_MODEL, cwd: env.workDir, env: env.env, inheritEnv: false }),
    );
    const systemOf = (index: number): string => {
      const messages = server.turns()[index]!.raw.messages as { role: string; content: unknown }[];
      const system = messages
        .filter((m) => m.role === "system")
        .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
      return system.join("\n");
    };
    await agent.run("one", { systemPrompt: "You are the REPLACED-PROMPT tester." });
    const replaced = systemOf(server.turns().length - 1);
    await agent.run("two", { systemPrompt: { append: "APPENDED-RULE: answer in French." } });
    const appended = systemOf(server.turns().length - 1);
    expect(replaced).toContain("REPLACED-PROMPT");
    expect(replaced).not.toContain("You are CodeBuddy Code");
    expect(appended).toContain("You are CodeBuddy Code");
    expect(appended).toContain("APPENDED-RULE: answer in French.");
  });

  it("ask: the control protocol asks the host for each tool; approved, the Write runs; denied, it does not and the model is told it was rejected", async () => {
    await using server = await startChatCompletionsServer({
      rules: [
        {
          when: whenChatUserSays(/WRITE_IT ([^\s<]+)/),
          reply: (view) => ({
            toolCall: { name: "Write", arguments: { file_path: /WRITE_IT ([^\s<]+)/.exec(view.lastUserText)![1]!, content: "asked\n" } },
          }),
        },
        { when: whenChatToolResult("Write"), reply: (view) => ({ text: `tool said: ${view.lastToolResult!.content.slice(0, 600)}` }) },
      ],
    });
    await using env = codebuddyTestEnv(server);
    await using agent = new Agent(
      codebuddy({ command: CODEBUDDY_BIN, model: SCRIPTED_MODEL, cwd: env.workDir, env: env.env, inheritEnv: false }),
    );
    const approved = join(env.workDir, "approved.txt");
    const asked: string[] = [];
    await agent.run(`WRITE_IT ${approved}`, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push(`${request.kind}:${request.toolName}`);
        request.approve();
      },
    });
    expect(asked).toEqual(["permission:Write"]);
    expect(readFileSync(approved, "utf8")).toBe("asked\n");

    const denied = join(env.workDir, "denied.txt");
    const result = await agent.run(`WRITE_IT ${denied}`, {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => request.deny("not in this folder"),
    });
    expect(existsSync(denied)).toBe(false);
    // codebuddy 2.117.0 tells the model its own rejection text; the host's reason is not in it.
    expect(result.text).toContain("The tool use was rejected");
  });
});
