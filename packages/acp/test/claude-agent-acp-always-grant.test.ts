// claude-agent-acp keeps an "Always Allow" as a rule of the session in its own process (0.23.1): a
// thread turn that does not confine the agent reuses that process and the grant holds; one under
// a policy that has every call asked continues the session in a new process, where it asks again
// (real adapter).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ClaudeTestEnv } from "@adaptor/testkit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import type { Agent, AgentEvent, Policy } from "adaptor";
import { claudeAgentAcp } from "../src/index.js";
import { claudeAdapterEachTest } from "./support.js";

const start = claudeAdapterEachTest();
let agent: Agent | undefined;

/** A model that answers the prompt `TOUCH <name>` with one Bash call `touch <workDir>/<name>`, then "done"; an Agent with a thread store on it. */
async function touchingModel(): Promise<ClaudeTestEnv> {
  let dir = "";
  const started = await start(
    [
      {
        name: "touch",
        when: () => true,
        reply: (view) => {
          const { messages } = view.raw as { messages: { content: unknown }[] };
          const last = messages.at(-1)!;
          if (Array.isArray(last.content) && (last.content as { type?: string }[]).some((c) => c.type === "tool_result"))
            return { text: "done" };
          const name = /TOUCH (\w+)/.exec(JSON.stringify(last.content))![1]!;
          return { toolUse: { name: "Bash", input: { command: `touch ${dir}/${name}`, description: name } } };
        },
      },
    ],
    (env) => claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }),
    { threadStore: new MemoryThreadStore() },
  );
  dir = started.env.workDir;
  agent = started.agent;
  return started.env;
}

/** One turn of thread `t`: the tools asked about (each answered "Always Allow" when offered, else allowed once) and its events. */
async function turn(name: string, policy: Policy | undefined) {
  const asked: string[] = [];
  const stream = agent!.thread("t").stream(`TOUCH ${name}`, {
    ...(policy ? { policy } : {}),
    onApproval: (request) => {
      asked.push(request.toolName ?? "");
      if ((request.choices ?? []).some((choice) => choice.key === "allow_always")) request.answer("allow_always");
      else request.approve();
    },
  });
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  const result = await stream.result();
  return { asked, events, result };
}

const reused = (events: AgentEvent[]): boolean => events.some((e) => e.type === "notice" && e.message === "process reused");

describe("claude-agent-acp: an 'Always Allow' answered under inherit (real adapter)", () => {
  it("holds in the parked process for a turn that does not confine, and not for a turn under ask (a new process asks again)", async () => {
    const env = await touchingModel();
    const first = await turn("first", undefined);
    expect(first.asked).toEqual(["Bash"]);
    expect(first.result.status).toBe("completed");

    const second = await turn("second", undefined);
    expect(reused(second.events)).toBe(true);
    expect(second.asked).toEqual([]);
    expect(existsSync(join(env.workDir, "second"))).toBe(true);

    const third = await turn("third", { approvals: { permission: "ask" } });
    expect(reused(third.events)).toBe(false);
    expect(third.events.filter((e) => e.type === "process" && e.kind === "spawn")).toHaveLength(1);
    expect(third.events.find((e) => e.type === "notice" && e.kind === "policy" && e.data?.["alwaysAllowed"] === true)).toBeDefined();
    expect(third.asked).toEqual(["Bash"]);
    expect(third.result.status).toBe("completed");
    expect(third.result.sessionId).toBe(first.result.sessionId);
    expect(existsSync(join(env.workDir, "third"))).toBe(true);
    expect(third.result.enforcement.every((entry) => entry.enforced)).toBe(true);
  });
});
