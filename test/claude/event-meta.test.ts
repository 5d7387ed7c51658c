import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { Agent, type AgentEvent, type Stream } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// Event meta and the process lifecycle on the real claude binary (pinned 2.1.332): every event of a
// thread turn carries that turn's `meta.turnId`, and a run whose process ends emits `process` `exit`.

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

async function collect(stream: Stream): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  await stream.result();
  return events;
}

describe("event meta on the real claude binary", { timeout: 120_000 }, () => {
  it("every event of a thread turn, of every type, carries the turn's meta.turnId; the next turn has another", async () => {
    // A turn that writes a file: text, a tool call asked about, its result, notices and process events.
    h = await harness([
      { name: "done", when: whenToolResult("Write"), reply: { text: "written" } },
      {
        name: "write",
        when: whenUserSays("write it"),
        reply: { toolUse: { name: "Write", input: { file_path: "out.txt", content: "x" } } },
      },
    ]);
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
      threadStore: new MemoryThreadStore(),
      onApproval: (request) => request.approve(),
    });
    const thread = agent.thread("meta");
    const first = await collect(thread.stream("write it"));
    const second = await collect(thread.stream("hello again"));
    const types = new Set(first.map((event) => event.type));
    for (const type of ["run-started", "process", "notice", "text-delta", "tool-call", "tool-result", "approval-request", "run-finished"]) {
      expect(types.has(type as AgentEvent["type"])).toBe(true);
    }
    const firstIds = new Set(first.map((event) => event.meta.turnId));
    const secondIds = new Set(second.map((event) => event.meta.turnId));
    expect(firstIds.size).toBe(1);
    expect(secondIds.size).toBe(1);
    const [firstId] = firstIds;
    const [secondId] = secondIds;
    expect(firstId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(secondId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(secondId).not.toBe(firstId);
  });

  it("a run outside a thread has no turnId; its process ends during the run: process exit with the pid and code 0", async () => {
    h = await harness();
    const events = await collect(h.agent.stream("say hello"));
    expect(events.every((event) => event.meta.turnId === undefined)).toBe(true);
    // claude's command_lifecycle lines (queued, started, completed) are known: no "unhandled line" notice.
    expect(events.filter((event) => event.type === "notice" && /unhandled line type/.test(event.message ?? ""))).toEqual([]);
    const spawn = events.find((event) => event.type === "process" && event.kind === "spawn");
    const exits = events.filter((event) => event.type === "process" && event.kind === "exit");
    expect(exits).toHaveLength(1);
    expect(exits[0]).toMatchObject({ type: "process", kind: "exit", text: "code 0", pid: spawn?.type === "process" ? spawn.pid : -1 });
    expect(events.at(-2)).toBe(exits[0]);
    expect(events.at(-1)?.type).toBe("run-finished");
  });
});
