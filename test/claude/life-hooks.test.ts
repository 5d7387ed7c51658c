import { afterEach, describe, expect, it } from "vitest";
import { whenToolResult, whenUserSays } from "@adaptor/testkit";
import { claude } from "@adaptor/claude";
import { MemoryThreadStore } from "@adaptor/threadstore";
import {
  AdaptorError,
  Agent,
  type NotificationHookInput,
  type PreCompactHookInput,
  type SessionEndHookInput,
  type SessionStartHookInput,
  type SubagentStartHookInput,
  type SubagentStopHookInput,
} from "adaptor";
import { harness, type Harness } from "./support.js";

// The hooks of the agent's life on the real claude binary: each is a CLI hook registered in the
// `initialize` control request and answered over `hook_callback` (the scripted model's request
// log shows what the model was sent).

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const AUTO = { policy: { approvals: { permission: "auto_approve" as const } } };
const REVIEWER = { "release-reviewer": { description: "Reviews release notes for tone", prompt: "You are the release reviewer." } };

/** The JSON text of a model request's messages. */
function messagesText(body: unknown): string {
  return JSON.stringify((body as { messages?: unknown[] } | undefined)?.messages ?? []);
}

/** The JSON text of a model request's last message. */
function lastMessageText(body: unknown): string {
  return JSON.stringify((body as { messages?: unknown[] } | undefined)?.messages?.at(-1) ?? null);
}

/** An Agent on the harness's binary with a thread store, for turns on one conversation. */
function threadAgent(harnessed: Harness): Agent {
  return new Agent(claude({ cwd: harnessed.env.workDir, env: harnessed.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    threadStore: new MemoryThreadStore(),
  });
}

describe("hooks of the agent's life (real binary)", { timeout: 180_000 }, () => {
  it("onSubagentStart sees the subagent's type and its additionalContext reaches the subagent's model; onSubagentStop sees its answer and continueWith makes it go on", async () => {
    h = await harness([
      // The CLI hands the subagent the hook's reason as the next message of its conversation.
      {
        name: "subagent-again",
        when: (view) => lastMessageText(view.raw).includes("check the headings too"),
        reply: { text: "SUBAGENT second look" },
      },
      {
        name: "delegate",
        when: whenUserSays("delegate the review"),
        reply: {
          toolUse: {
            name: "Agent",
            input: { description: "review notes", prompt: "check the tone of NOTES.md", subagent_type: "release-reviewer" },
          },
        },
      },
      { name: "subagent", when: whenUserSays("check the tone of NOTES.md"), reply: { text: "SUBAGENT first look" } },
      { name: "parent", when: whenToolResult("Agent"), reply: (view) => ({ text: `reviewer: ${String(view.lastToolResult?.content)}` }) },
    ]);
    const starts: SubagentStartHookInput[] = [];
    const stops: SubagentStopHookInput[] = [];
    const result = await h.agent.run("delegate the review", {
      agents: REVIEWER,
      ...AUTO,
      hooks: {
        onSubagentStart: (start, context) => {
          expect(context.native).toBe(true);
          starts.push(start);
          return { additionalContext: "HOOK-CONTEXT-FOR-SUBAGENT" };
        },
        onSubagentStop: (stop) => {
          stops.push(stop);
          return stop.continued ? undefined : { continueWith: "check the headings too" };
        },
      },
    });
    expect(starts).toEqual([{ agentId: expect.stringMatching(/^a[0-9a-f]+$/), agentType: "release-reviewer" }]);
    expect(stops).toEqual([
      { agentId: starts[0]!.agentId, agentType: "release-reviewer", text: "SUBAGENT first look" },
      { agentId: starts[0]!.agentId, agentType: "release-reviewer", text: "SUBAGENT second look", continued: true },
    ]);
    expect(h.server.requests.map((request) => request.rule)).toEqual(["delegate", "subagent", "subagent-again", "parent"]);
    const subagentRequest = h.server.requests.find((request) => request.rule === "subagent");
    expect(messagesText(subagentRequest?.body)).toContain("HOOK-CONTEXT-FOR-SUBAGENT");
    // The parent model never read the subagent's context.
    const parentRequest = h.server.requests.find((request) => request.rule === "parent");
    expect(messagesText(parentRequest?.body)).not.toContain("HOOK-CONTEXT-FOR-SUBAGENT");
    expect(result.text).toContain("SUBAGENT second look");
  });

  it("a life hook that throws ends the run as every hook does: AdaptorError `hook onSubagentStart failed` with the hook's error as cause", async () => {
    h = await harness([
      {
        when: whenUserSays("delegate the review"),
        reply: {
          toolUse: {
            name: "Agent",
            input: { description: "review notes", prompt: "check the tone of NOTES.md", subagent_type: "release-reviewer" },
          },
        },
      },
      { when: whenUserSays("check the tone of NOTES.md"), reply: { text: "SUBAGENT first look" } },
      { when: whenToolResult("Agent"), reply: { text: "done" } },
    ]);
    const boom = new Error("the host's subagent hook broke");
    const failed = await h.agent
      .run("delegate the review", {
        agents: REVIEWER,
        ...AUTO,
        hooks: {
          onSubagentStart: () => {
            throw boom;
          },
        },
      })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(AdaptorError);
    expect((failed as Error).message).toBe("hook onSubagentStart failed");
    expect((failed as Error).cause).toBe(boom);
  });

  it("a /compact turn: onPreCompact sees the manual trigger and the instructions, then onSessionStart (source compact) adds context the next turn's model reads", async () => {
    h = await harness([{ when: () => true, reply: { text: "an answer or a summary" } }]);
    agent = threadAgent(h);
    const thread = agent.thread("compacted");
    await thread.run("hello there");
    const order: string[] = [];
    const compacts: PreCompactHookInput[] = [];
    const starts: SessionStartHookInput[] = [];
    const hooks = {
      onPreCompact: (compact: PreCompactHookInput) => {
        order.push("preCompact");
        compacts.push(compact);
      },
      onSessionStart: (start: SessionStartHookInput) => {
        order.push("sessionStart");
        starts.push(start);
        return { additionalContext: "HOOK-CONTEXT-AFTER-COMPACT" };
      },
    };
    await thread.run("/compact keep the names", { hooks });
    expect(order).toEqual(["preCompact", "sessionStart"]);
    expect(compacts).toEqual([{ trigger: "manual", instructions: "keep the names" }]);
    expect(starts).toEqual([{ source: "compact", model: "claude-sonnet-4-5" }]);
    const before = h.server.requests.length;
    // The same hooks: the turn runs on the same process, which holds the hook's context.
    await thread.run("what now", { hooks });
    const next = h.server.requests.slice(before).find((request) => request.view.lastUserText.includes("what now"));
    expect(messagesText(next?.body)).toContain("HOOK-CONTEXT-AFTER-COMPACT");
  });

  it("a /clear turn: onSessionEnd sees reason clear, then onSessionStart sees source clear", async () => {
    h = await harness([{ when: () => true, reply: { text: "an answer" } }]);
    const seen: (SessionEndHookInput | SessionStartHookInput)[] = [];
    await h.agent.run("/clear", {
      hooks: {
        onSessionEnd: (end) => void seen.push(end),
        onSessionStart: (start) => void seen.push(start),
      },
    });
    expect(seen).toEqual([{ reason: "clear" }, { source: "clear" }]);
  });

  it("onNotification: a permission prompt the host leaves unanswered is announced (permission_prompt) while the approval waits", async () => {
    h = await harness([
      {
        when: whenUserSays("list the files"),
        reply: { toolUse: { name: "Bash", input: { command: "echo listed", description: "List" } } },
      },
      { when: whenToolResult("Bash"), reply: (view) => ({ text: `listed: ${String(view.lastToolResult?.content)}` }) },
    ]);
    const notifications: NotificationHookInput[] = [];
    let announced: () => void = () => undefined;
    const notified = new Promise<void>((resolve) => (announced = resolve));
    const result = await h.agent.run("list the files", {
      policy: { approvals: { permission: "ask" } },
      // The approval is answered once the agent announced it waits (claude-code 2.1.332: after 6 s).
      onApproval: async (request) => {
        await notified;
        request.approve();
      },
      hooks: {
        onNotification: (notification) => {
          notifications.push(notification);
          announced();
        },
      },
    });
    expect(notifications).toEqual([{ message: "Claude needs your permission to use Bash", kind: "permission_prompt" }]);
    expect(result.text).toContain("listed");
  });
});
