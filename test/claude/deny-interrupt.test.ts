import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { Agent, type AgentEvent } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// `request.deny(reason, { interrupt: true })` on the real claude binary: the call is refused and
// the turn ends as an interrupt, with no further model request (the Claude Agent SDK's canUseTool
// answer `{ behavior: "deny", interrupt: true }`), from `run()` as from `stream()`.

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const rules = [
  { name: "call", when: whenUserSays("DANGER"), reply: { toolUse: { name: "Bash", input: { command: "rm -rf ./build" } } } },
  { name: "after-deny", when: whenToolResult("Bash"), reply: { text: "went on after the deny" } },
];

describe("claude deny with interrupt (real binary)", { timeout: 120_000 }, () => {
  it("run(): the call is denied and the turn ends interrupted, the model not asked again", async () => {
    h = await harness(rules);
    const asked: unknown[] = [];
    const result = await h.agent.run("DANGER", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => {
        asked.push((request.input as { command?: unknown }).command);
        request.deny("stop everything", { interrupt: true });
      },
    });
    expect(asked).toEqual(["rm -rf ./build"]);
    expect(result.status).toBe("interrupted");
    expect(result.permissionDenials?.map((denial) => denial.toolName)).toEqual(["Bash"]);
    expect(h.server.requests.filter((request) => request.rule === "after-deny")).toEqual([]);
  });

  it("stream(): the approval.resolved notice says the deny interrupted the turn", async () => {
    h = await harness(rules);
    const stream = h.agent.stream("DANGER", { policy: { approvals: { permission: "ask" } } });
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "approval-request") event.request.deny("stop everything", { interrupt: true });
    }
    const result = await stream.result();
    expect(result.status).toBe("interrupted");
    const resolved = events.find((event) => event.type === "notice" && event.kind === "approval.resolved");
    expect(resolved).toMatchObject({ data: { outcome: "denied", interrupt: true } });
    expect(h.server.requests.filter((request) => request.rule === "after-deny")).toEqual([]);
  });

  it("a thread turn ended so is its checkpoint: the next turn runs and its request has the denied call", async () => {
    // The next turn's rule first: its request also carries the denied call's tool result.
    h = await harness([{ name: "next", when: whenUserSays("after the deny"), reply: { text: "next turn answered" } }, ...rules]);
    agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
      threadStore: new MemoryThreadStore(),
    });
    const thread = agent.thread("chat");
    const first = await thread.run("DANGER", {
      policy: { approvals: { permission: "ask" } },
      onApproval: (request) => request.deny("stop everything", { interrupt: true }),
    });
    expect(first.status).toBe("interrupted");
    const next = await thread.run("after the deny");
    expect(next.status).toBe("completed");
    expect(next.text).toBe("next turn answered");
    const asked = h.server.requests.find((request) => request.rule === "next");
    expect(JSON.stringify(asked?.body)).toContain("DANGER");
    expect(h.server.requests.filter((request) => request.rule === "after-deny")).toEqual([]);
  });
});
