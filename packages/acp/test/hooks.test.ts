import { afterEach, describe, expect, it } from "vitest";
import type { OpenAIServer } from "@adaptor/testkit";
import {
  Agent,
  ErrFeatureUnsupported,
  FeatureUnsupportedError,
  findError,
  isError,
  type AgentEvent,
  type ToolResultHookInput,
} from "adaptor";
import { acp } from "../src/index.js";
import { codexAcpHarness, type AdapterHarness } from "./support.js";

// The `hooks` run option over ACP: an ACP agent asks the client only about some tool calls (its
// permission requests, under its own rules) and never waits for it after one, at a prompt or at a
// stop, so the hooks it can take observe the session's updates. A `beforeToolCall` hook, which would
// have to stop or edit every call, is refused before launch.

let h: AdapterHarness<OpenAIServer> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("hooks over ACP", () => {
  it("beforeToolCall is refused with FeatureUnsupportedError before any process starts", async () => {
    await using agent = new Agent(acp({ command: "adaptor-no-such-acp-agent" }));
    const events: AgentEvent[] = [];
    const stream = agent.stream("hi", { hooks: { beforeToolCall: () => ({ deny: "no" }) } });
    for await (const event of stream) events.push(event);
    const refused = await stream.result().catch((e: unknown) => e);
    expect(isError(refused, ErrFeatureUnsupported)).toBe(true);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "acp", feature: "hooks.beforeToolCall" });
    expect(events.some((e) => e.type === "process")).toBe(false);
  });

  it("codex-acp (real adapter): afterToolCall sees the shell call with its result, onPromptSubmit the prompt, onStop the final text", async () => {
    h = await codexAcpHarness();
    const order: string[] = [];
    const calls: ToolResultHookInput[] = [];
    const native: boolean[] = [];
    const result = await h.agent.run("SHELL_CMD echo hook-visible-output", {
      onApproval: (request) => request.approve(),
      hooks: {
        onPromptSubmit: ({ prompt }, context) => {
          order.push(`prompt:${prompt}`);
          native.push(context.native);
        },
        afterToolCall: (call, context) => {
          order.push("tool");
          calls.push(call);
          native.push(context.native);
        },
        onStop: ({ text }, context) => {
          order.push(`stop:${text ?? ""}`);
          native.push(context.native);
        },
      },
    });
    expect(result.text).toMatch(/^Done: /);
    expect(order).toEqual(["prompt:SHELL_CMD echo hook-visible-output", "tool", `stop:${result.text}`]);
    // The whole call on a failure: its output says why codex-acp reported the command failed.
    expect(calls[0], JSON.stringify(calls[0])).toMatchObject({ isError: false });
    expect(String(calls[0]!.output)).toContain("hook-visible-output");
    expect(JSON.stringify(calls[0]!.input)).toContain("echo hook-visible-output");
    expect(native).toEqual([false, false, false]);
  });
});
