import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer, startChatCompletionsServer, whenChatUserSays, whenUserSays } from "@adaptor/testkit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, FeatureUnsupportedError, findError, type AgentEvent } from "adaptor";
import { acp, claudeAgentAcp, opencode } from "../src/index.js";
import { opencodeTestConfig } from "./opencode-env.js";
import { isolatedHome } from "./support.js";

const CLAUDE_AGENT_ACP_ENTRY = fileURLToPath(new URL("../node_modules/@zed-industries/claude-agent-acp/dist/index.js", import.meta.url));

// stream.interrupt() on ACP: `session/cancel` stops the running turn; the verdict is an
// interrupted success, and the thread's next turn runs on the same process in the same session.
// Real agents with a scripted model whose answer to the first prompt hangs until interrupted.

/** Resolves when the scripted model is asked the slow prompt (the turn is then surely running). */
function gate(): { readonly asked: Promise<void>; open(): void } {
  let open!: () => void;
  const asked = new Promise<void>((resolve) => (open = resolve));
  return { asked, open };
}

/** A thread turn interrupted mid-turn, then the next turn of the thread: both streams' events and verdicts. */
async function interruptThenContinue(agent: Agent, asked: Promise<void>) {
  const thread = agent.thread("interrupted");
  const events: AgentEvent[] = [];
  const stream = thread.stream("count to a million");
  const drained = (async () => {
    for await (const event of stream) events.push(event);
  })();
  await asked;
  await stream.interrupt();
  const first = await stream.result();
  await drained;
  const nextEvents: AgentEvent[] = [];
  const next = thread.stream("say hello");
  for await (const event of next) nextEvents.push(event);
  return { first, events, second: await next.result(), nextEvents };
}

describe("ACP stream.interrupt() (session/cancel)", () => {
  it("OpenCode: the turn ends as status interrupted; the thread's next turn runs on the same process and session", async () => {
    const slow = gate();
    await using server = await startChatCompletionsServer({
      rules: [
        {
          when: whenChatUserSays("count to a million"),
          reply: () => {
            slow.open();
            return { text: "never sent", delayMs: 120_000 };
          },
        },
        { when: whenChatUserSays("say hello"), reply: { text: "Hello after the interrupt." } },
      ],
    });
    const home = await isolatedHome();
    try {
      // The cooperative path: on a busy machine OpenCode can take longer than the default 2 s grace
      // to end the cancelled turn, after which the host ends its process (pinned elsewhere).
      await using agent = new Agent(opencode({ ...opencodeTestConfig(home, server), killGraceMs: 60_000 }), {
        threadStore: new MemoryThreadStore(),
      });
      const { first, events, second, nextEvents } = await interruptThenContinue(agent, slow.asked);
      expect(first.status).toBe("interrupted");
      expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: true, interrupted: true });
      expect(second.status).toBe("completed");
      expect(second.text).toBe("Hello after the interrupt.");
      // The same process served it (no spawn, the pool's notice) in the same session.
      expect(nextEvents.some((e) => e.type === "process" && e.kind === "spawn")).toBe(false);
      expect(nextEvents.some((e) => e.type === "notice" && e.message === "process reused")).toBe(true);
      expect(server.turns().map((t) => t.lastUserText.includes("say hello"))).toContain(true);
    } finally {
      await home.cleanup();
    }
  });

  it("claudeAgentAcp() refuses interrupt (FeatureUnsupportedError): after session/cancel, claude-agent-acp 0.23.1 answers the next prompt at once without running it", async () => {
    const slow = gate();
    await using server = await startAnthropicServer({
      rules: [
        {
          when: whenUserSays("count to a million"),
          reply: () => {
            slow.open();
            return { text: "never sent", delayMs: 120_000 };
          },
        },
        { when: whenUserSays("say hello"), reply: { text: "Hello after the interrupt." } },
      ],
    });
    const env = await claudeTestEnv({ server });
    try {
      await using preset = new Agent(claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }));
      const stream = preset.stream("say hello");
      const refused = await stream.interrupt().catch((e: unknown) => e);
      expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "claude-agent-acp", feature: "interrupt" });
      expect((await stream.result()).text).toBe("Hello after the interrupt.");
      const helloAsked = (): number => server.requests.filter((r) => r.view.lastUserText.includes("say hello")).length;
      const before = helloAsked();

      // Why: the same adapter through acp(), where interrupt is on by default.
      await using generic = new Agent(
        acp({ command: process.execPath, args: [CLAUDE_AGENT_ACP_ENTRY], cwd: env.workDir, env: env.env, inheritEnv: false }),
        { threadStore: new MemoryThreadStore() },
      );
      const { first, second } = await interruptThenContinue(generic, slow.asked);
      expect(first.status).toBe("interrupted");
      // The next prompt ends at once: no model request for it, no output.
      expect(second.text).toBe("");
      expect(helloAsked()).toBe(before);
    } finally {
      await env.cleanup();
    }
  });
});
