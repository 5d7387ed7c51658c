import { afterEach, describe, expect, it } from "vitest";
import { whenPromptSays, whenToolOutput } from "@adaptor/testkit";
import {
  Agent,
  FeatureUnsupportedError,
  findError,
  isError,
  ErrFeatureUnsupported,
  type HookContext,
  type ToolResultHookInput,
} from "adaptor";
import { codex } from "@adaptor/codex";
import { codexHarness, type CodexHarness } from "./support.js";

// The `hooks` run option on the real codex binary. Over the protocols the driver speaks (app-server
// JSON-RPC, exec JSON Lines) codex waits for the host only for some commands and file changes, and
// only under some policies; its own command hooks (config-file hooks run as a process per event,
// behind hook trust) are not bridged by this driver. So the hooks it takes observe the run's events:
// after each tool call with its result, the prompt, the stop. A `beforeToolCall` hook is refused
// before launch, and an observing hook that answers with a verdict ends the run with
// FeatureUnsupportedError rather than dropping it.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const shell = (cmd: string) => ({ functionCall: { name: "exec_command", arguments: { cmd } } });

describe("hooks on codex (real binary)", { timeout: 180_000 }, () => {
  it.each(["app-server", "exec"] as const)(
    "%s: afterToolCall sees each call with its result, onPromptSubmit the prompt, onStop the final text, all observing",
    async (transport) => {
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
          onStop: ({ text }, context) => {
            order.push(`stop:${text ?? ""}`);
            contexts.push(context);
          },
        },
      });
      expect(result.text).toBe("it ran");
      expect(order).toEqual(["prompt:run the command", `tool:${calls[0]?.toolName}`, "stop:it ran"]);
      expect(calls).toHaveLength(1);
      expect(calls[0]!.isError).toBe(false);
      expect(String(calls[0]!.output)).toContain("hook-visible-output");
      expect(JSON.stringify(calls[0]!.input)).toContain("echo hook-visible-output");
      expect(contexts.map((context) => context.native)).toEqual([false, false, false]);
      expect(contexts.every((context) => context.signal.aborted)).toBe(true); // the run is over
    },
  );

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

  it.each(["app-server", "exec"] as const)(
    "%s: beforeToolCall is refused before launch with FeatureUnsupportedError",
    async (transport) => {
      await using refusing = new Agent(codex({ command: "/nonexistent/codex", transport }));
      const refused = await refusing.run("hi", { hooks: { beforeToolCall: () => undefined } }).catch((e: unknown) => e);
      expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature: "hooks.beforeToolCall" });
    },
  );
});
