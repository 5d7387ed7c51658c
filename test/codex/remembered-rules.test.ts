import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ResponsesRequestView, ResponsesScriptRule } from "@adaptor/testkit";
import { Agent, type AgentEvent, type ApprovalRequest } from "adaptor";
import { codexHarness, type CodexHarness } from "./support.js";

// Real codex binary, app-server transport: a rule the host remembers with its answer is decided by
// the SDK's broker, so codex itself is only ever told `accept` (once) and keeps asking; the SDK
// answers the repeated ask at once and the command runs.

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** How many tool outputs the request's input holds (the model's step in a multi-call turn). */
function outputs(view: ResponsesRequestView): number {
  const input = (view.raw as { input?: unknown }).input;
  return Array.isArray(input) ? input.filter((item: { type?: unknown }) => item.type === "function_call_output").length : 0;
}

/** A turn in which the model runs `commands` one after the other, then says "finished". */
function commandsInOrder(marker: string, commands: readonly string[]): ResponsesScriptRule {
  return {
    name: marker,
    when: (view) => view.firstUserText.includes(marker),
    reply: (view) => {
      const step = outputs(view);
      const command = commands[step];
      return command === undefined ? { text: "finished" } : { functionCall: { name: "exec_command", arguments: { cmd: command } } };
    },
  };
}

async function runWith(
  harness: CodexHarness,
  prompt: string,
  decide: (request: ApprovalRequest, index: number) => void,
): Promise<{ events: AgentEvent[]; requests: ApprovalRequest[]; thrown: unknown[]; verdict: unknown }> {
  const requests: ApprovalRequest[] = [];
  const thrown: unknown[] = [];
  const agent = new Agent(harness.driver, {
    onApproval: (request) => {
      requests.push(request);
      try {
        decide(request, requests.length - 1);
      } catch (error) {
        thrown.push(error);
        request.deny("refused remember");
      }
    },
  });
  const stream = agent.stream(prompt, { policy: { approvals: { permission: "ask" }, sandbox: "unrestricted" } });
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const verdict = await stream.result().catch((error: unknown) => error);
  await agent.close();
  return { events, requests, thrown, verdict };
}

const notices = (events: readonly AgentEvent[], kind: string) =>
  events.flatMap((e) => (e.type === "notice" && e.kind === kind ? [e.data ?? {}] : []));

describe("remembered approval rules on codex (real binary, app-server)", () => {
  it("approve({ remember }) with the ask's suggestion: the same command again is approved by the SDK and runs; another command still asks", async () => {
    h = await codexHarness({
      rules: [commandsInOrder("REMEMBER_RUN", ["echo one >> log.txt", "echo one >> log.txt", "echo two >> log.txt"])],
    });
    const { events, requests, thrown, verdict } = await runWith(h, "REMEMBER_RUN", (request, index) => {
      if (index === 0) request.approve({ remember: request.suggestions[0]! });
      else request.deny("not this one");
    });
    expect(thrown).toEqual([]);
    expect(verdict).toMatchObject({ text: "finished" });
    expect(requests.map((r) => r.input)).toMatchObject([
      { command: expect.stringContaining("echo one") },
      { command: expect.stringContaining("echo two") },
    ]);
    const rule = requests[0]!.suggestions[0]!;
    expect(rule).toEqual({ toolName: "shell", command: (requests[0]!.input as { command: string }).command });
    // The first command ran twice (the second time on the remembered rule), the other never.
    expect(readFileSync(join(h.env.workDir, "log.txt"), "utf8")).toBe("one\none\n");
    expect(notices(events, "approval.remembered")).toEqual([
      { id: requests[0]!.id, kind: "permission", toolName: "shell", outcome: "approved", rule, scope: "run" },
    ]);
    // Every decision is in the stream: the rule's own, between the host's two.
    const resolved = notices(events, "approval.resolved");
    expect(resolved.map((d) => [d.outcome, d.rule])).toEqual([
      ["approved", undefined],
      ["approved", rule],
      ["denied", undefined],
    ]);
  });

  it("deny(reason, { remember }): the same command again is denied by the SDK with that reason, and never runs", async () => {
    h = await codexHarness({ rules: [commandsInOrder("REMEMBER_DENY", ["echo bad >> log.txt", "echo bad >> log.txt"])] });
    const { events, requests, thrown, verdict } = await runWith(h, "REMEMBER_DENY", (request) =>
      request.deny("never this", { remember: request.suggestions[0]! }),
    );
    expect(thrown).toEqual([]);
    expect(requests).toHaveLength(1);
    expect(verdict).toMatchObject({ text: "finished" });
    expect(() => readFileSync(join(h!.env.workDir, "log.txt"))).toThrow(/ENOENT/);
    expect(notices(events, "approval.resolved").map((d) => [d.outcome, d.rule !== undefined])).toEqual([
      ["denied", false],
      ["denied", true],
    ]);
  });
});
