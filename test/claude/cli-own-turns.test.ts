import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { whenToolResult, whenUserSays, type ReplyUsage, type RequestView, type ScriptRule } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { claude } from "@adaptor/claude";
import { drainEvents, harness, type Harness } from "./support.js";

// Real claude binary (pinned 2.1.332): the CLI runs turns of its own, answering no prompt of the
// host's, about a background task's notification: on a parked process, when the task ended before
// the turn's result (a model call), and on a resumed session, whose transcript holds a task that
// "didn't finish before the previous session ended" (a zero-call turn). Such a turn's result
// (`origin: {"kind":"task-notification"}`, no `user_message_uuid`) must never be taken as the
// verdict of the thread's next turn, whose own prompt the model answers after it.

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

/** The CLI's own turn about a task notification: the last message holds the notification alone. */
const ownTurn = (view: RequestView): boolean =>
  view.lastToolResult === undefined && view.lastUserText === "" && JSON.stringify(view.raw).includes("<task-notification>");

const UNRESTRICTED = { policy: { sandbox: "unrestricted" as const } };

/**
 * A background task that ends before its turn's result, the CLI's own turn about it (slow enough
 * that the host's next prompt arrives while it runs), and the host's second prompt; `usage` of
 * the CLI's own turn and of the second prompt's answer, when given.
 */
function backgroundTaskRules(usage: { own?: ReplyUsage; second?: ReplyUsage } = {}): ScriptRule[] {
  return [
    {
      name: "second",
      when: whenUserSays("SECOND-PROMPT"),
      reply: { text: "ANSWER-TO-SECOND", ...(usage.second ? { usage: usage.second } : {}) },
    },
    { name: "own-turn", when: ownTurn, reply: { text: "OWN-TURN-TEXT", delayMs: 4000, ...(usage.own ? { usage: usage.own } : {}) } },
    {
      name: "start",
      when: whenUserSays("START_BG"),
      reply: { toolUse: { name: "Bash", input: { command: "sleep 2", description: "short", run_in_background: true } } },
    },
    // The background command ends 2 s after this request and 3 s before its answer, so the CLI
    // queues its notification for a turn after this one.
    { name: "answer", when: whenToolResult("Bash"), reply: { text: "started in the background", delayMs: 5000 } },
  ];
}

describe.skipIf(process.platform !== "linux")(
  "turns the CLI runs by itself are not the next turn's (real binary)",
  { timeout: 120_000 },
  () => {
    it("reused process: a background task that ended before the result makes the CLI answer it alone; the next turn's verdict is its own prompt's", async () => {
      h = await harness(backgroundTaskRules());
      agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
        threadStore: new MemoryThreadStore(),
      });
      const thread = agent.thread("own-turn");
      expect((await thread.run("START_BG", UNRESTRICTED)).text).toBe("started in the background");
      const stream = thread.stream("SECOND-PROMPT please", UNRESTRICTED);
      const events = await drainEvents(stream);
      const second = await stream.result();
      expect(events.some((e) => e.type === "notice" && e.message === "process reused")).toBe(true);
      expect(h.server.requests.map((r) => r.rule)).toEqual(["start", "answer", "own-turn", "second"]);
      expect(second.text).toBe("ANSWER-TO-SECOND");
      expect(second.usage?.outputTokens).toBeGreaterThan(0);
      // Nothing of the CLI's own turn reaches the host's turn.
      expect(JSON.stringify(events)).not.toContain("OWN-TURN-TEXT");
      expect(JSON.stringify(second.transcript())).not.toContain("OWN-TURN-TEXT");
    });

    it("reused process: the usage and cost of the CLI's own turn are added to the next turn's Result, and a usage.cli_turns notice says so", async () => {
      h = await harness(
        backgroundTaskRules({ own: { input_tokens: 7000, output_tokens: 700 }, second: { input_tokens: 300, output_tokens: 30 } }),
      );
      agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
        threadStore: new MemoryThreadStore(),
      });
      const thread = agent.thread("own-usage");
      await thread.run("START_BG", UNRESTRICTED);
      const stream = thread.stream("SECOND-PROMPT please", UNRESTRICTED);
      const events = await drainEvents(stream);
      const second = await stream.result();
      expect(h.server.requests.map((r) => r.rule)).toEqual(["start", "answer", "own-turn", "second"]);
      expect(second.text).toBe("ANSWER-TO-SECOND");
      expect(second.usage).toMatchObject({ inputTokens: 7300, outputTokens: 730 });
      const notice = events.find((e) => e.type === "notice" && e.kind === "usage.cli_turns");
      expect(notice).toMatchObject({ data: { turns: 1, usage: { inputTokens: 7000, outputTokens: 700 } } });
      const ownCost = notice?.type === "notice" ? Number(notice.data?.["costUsd"]) : NaN;
      expect(ownCost).toBeGreaterThan(0);
      expect(second.costUsd).toBeGreaterThan(ownCost);
    });

    it("resumed session: the CLI's zero-call turn about a task of the previous process is not the verdict", async () => {
      h = await harness([
        { name: "second", when: whenUserSays("SECOND-PROMPT"), reply: { text: "ANSWER-TO-SECOND" } },
        {
          name: "start",
          when: whenUserSays("START_BG"),
          reply: { toolUse: { name: "Bash", input: { command: "sleep 30", description: "long", run_in_background: true } } },
        },
        { name: "answer", when: whenToolResult("Bash"), reply: { text: "started in the background" } },
      ]);
      agent = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
        threadStore: new MemoryThreadStore(),
      });
      const thread = agent.thread("resumed");
      expect((await thread.run("START_BG", UNRESTRICTED)).text).toBe("started in the background");
      // A fresh process resumes the session; the task stopped at the end of turn 1 is still open in its transcript.
      const stream = thread.stream("SECOND-PROMPT please", { ...UNRESTRICTED, spawn: true });
      const events = await drainEvents(stream);
      const second = await stream.result();
      expect(events.some((e) => e.type === "process" && e.kind === "spawn")).toBe(true);
      expect(second.status).toBe("completed");
      expect(second.text).toBe("ANSWER-TO-SECOND");
      expect(second.usage?.outputTokens).toBeGreaterThan(0);
      expect(h.server.requests.map((r) => r.rule)).toEqual(["start", "answer", "second"]);
      // That turn made no model call: nothing to add, no usage notice.
      expect(events.some((e) => e.type === "notice" && e.kind === "usage.cli_turns")).toBe(false);
    });
  },
);
