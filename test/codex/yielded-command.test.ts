import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, type AgentEvent, type Stream } from "adaptor";
import { whenPromptSays } from "@adaptor/testkit";
import { processesWithArgument } from "../support/prewarm.js";
import { codexHarness, type CodexHarness } from "./support.js";

// Real codex binary (pinned 0.171.0): a command codex keeps running past its answer to the model
// (`exec_command` with `yield_time_ms`, codex answers "Process running with session ID ...") is a
// tool call codex never answers within the turn. The SDK answers it before the turn's end, and
// nothing of the turn (codex's own late answer, exit code 143 once the command was ended) comes after.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
let marker = "";
afterEach(async () => {
  await agent?.close();
  await h?.close();
  for (const pid of marker ? processesWithArgument(marker) : []) process.kill(pid, "SIGKILL");
  h = agent = undefined;
});

async function yieldingHarness(transport: "app-server" | "exec"): Promise<CodexHarness> {
  marker = `adaptor-yield-marker-${process.pid}-${Date.now()}`;
  const cmd = `node -e "setInterval(() => {}, 1000)" ${marker}`;
  return codexHarness({
    config: { transport },
    rules: [
      {
        name: "long job",
        when: whenPromptSays("LONG_JOB"),
        reply: { functionCall: { name: "exec_command", arguments: { cmd, yield_time_ms: 1000 } } },
      },
    ],
  });
}

// exec asks no approvals: its commands run under the sandbox alone.
const UNRESTRICTED = { policy: { sandbox: "unrestricted" as const, approvals: { permission: "auto_approve" as const } } };
const EXEC_UNRESTRICTED = { policy: { sandbox: "unrestricted" as const } };

/** The run's tool events and turn-end notice, in order, as `kind:id`. */
async function toolEvents(stream: Stream): Promise<{ order: string[]; results: AgentEvent[] }> {
  const order: string[] = [];
  const results: AgentEvent[] = [];
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    if (event.type === "tool-call" && event.phase === "start") order.push(`call:${event.id}`);
    if (event.type === "tool-result") {
      order.push(`result:${event.id}`);
      results.push(event);
    }
    if (event.type === "notice" && event.message === "turn completed") order.push("turn completed");
  }
  await stream.result();
  return { order, results };
}

describe.skipIf(process.platform !== "linux")("a command codex leaves running gets its tool-result within the turn (real binary)", () => {
  it.each([
    ["one-shot run on app-server", "app-server", false],
    ["thread turn on app-server (process parked)", "app-server", true],
    ["one-shot run on exec", "exec", false],
  ] as const)(
    "%s: the call is answered as still running, isError, before the turn's end; nothing of the turn after it",
    async (_, transport, threaded) => {
      h = await yieldingHarness(transport);
      agent = new Agent(h.driver, threaded ? { threadStore: new MemoryThreadStore() } : {});
      const options = transport === "exec" ? EXEC_UNRESTRICTED : UNRESTRICTED;
      const stream = threaded ? agent.thread("yield").stream("LONG_JOB", options) : agent.stream("LONG_JOB", options);
      const { order, results } = await toolEvents(stream);
      const calls = order.filter((e) => e.startsWith("call:"));
      expect(calls).toHaveLength(1);
      const id = calls[0]!.slice("call:".length);
      const end = transport === "exec" ? [] : ["turn completed"];
      expect(order).toEqual([`call:${id}`, `result:${id}`, ...end]);
      expect(results).toEqual([
        expect.objectContaining({
          type: "tool-result",
          id,
          name: "shell",
          output: "still running when the turn ended, ended by the SDK",
          isError: true,
        }),
      ]);
      await vi.waitFor(() => expect(processesWithArgument(marker)).toEqual([]), { timeout: 10_000, interval: 100 });
    },
    60_000,
  );
});
