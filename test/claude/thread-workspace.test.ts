import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { claudeTestEnv, startAnthropicServer } from "@adaptor/testkit";
import { Agent, ErrThreadIncompatible, isError } from "adaptor";
import { claude } from "@adaptor/claude";
import { closedAfterEach } from "../support/closed-after-each.js";

// A thread's workspace is the directory its CLI runs in: the driver's `cwd` when the run and the
// Agent give none. Two Agents sharing one store and one key, whose drivers run in different
// folders, never continue each other's conversation.

const open = closedAfterEach();

async function setup(): Promise<{ wsA: string; wsB: string; env: Record<string, string>; requests: () => number }> {
  const server = await startAnthropicServer({ rules: [{ name: "any", when: () => true, reply: { text: "noted" } }] });
  open.push(server);
  const env = await claudeTestEnv({ server });
  open.push({ close: () => env.cleanup() });
  const wsA = join(env.workDir, "alice");
  const wsB = join(env.workDir, "bob");
  mkdirSync(wsA);
  mkdirSync(wsB);
  return { wsA, wsB, env: env.env, requests: () => server.requests.filter((r) => r.rule === "any").length };
}

function agentIn(cwd: string, env: Record<string, string>, store: MemoryThreadStore): Agent {
  const agent = new Agent(claude({ cwd, env, inheritEnv: false, model: "claude-sonnet-4-5" }), { threadStore: store });
  open.push(agent);
  return agent;
}

describe("claude thread workspace from the driver's cwd", { timeout: 120_000 }, () => {
  it("an Agent whose driver runs in another folder is refused the thread (ErrThreadIncompatible), no model call", async () => {
    const { wsA, wsB, env, requests } = await setup();
    const store = new MemoryThreadStore();
    await agentIn(wsA, env, store).thread("chat-1").run("alice: my PIN is 4321");
    const before = requests();
    const err = await agentIn(wsB, env, store)
      .thread("chat-1")
      .run("bob: what do you see?")
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isError(err, ErrThreadIncompatible)).toBe(true);
    expect((err as Error).message).toMatch(/fingerprint changed/);
    expect(requests()).toBe(before);
  });

  it("an Agent whose driver runs in the same folder continues the thread", async () => {
    const { wsA, env } = await setup();
    const store = new MemoryThreadStore();
    const first = await agentIn(wsA, env, store).thread("chat-1").run("alice: my PIN is 4321");
    const second = await agentIn(wsA, env, store).thread("chat-1").run("alice again");
    expect(second.sessionId).toBe(first.sessionId);
  });
});
