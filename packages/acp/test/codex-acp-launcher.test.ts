import { afterEach, describe, expect, it } from "vitest";
import { codexTestEnv, startOpenAIServer, whenPromptSays, type CodexTestEnv, type OpenAIServer } from "@adaptor/testkit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, RunError } from "adaptor";
import {
  alive,
  CODEX_ACP_LAUNCHER,
  codexAcp,
  collect,
  expectCancelLeavesNothing,
  killOnceStarted,
  processesWith,
  spawnedPids,
} from "./support.js";

// codex-acp through its package's Node launcher (`node bin/codex-acp.js`), which runs the native
// binary as a child: the driver kit contains the pair like any CLI (own process group, its tree and
// process tag ended with it), so nothing is left whichever way the run ends.
let server: OpenAIServer | undefined;
let env: CodexTestEnv | undefined;
let agent: Agent | undefined;

afterEach(async () => {
  await agent?.close();
  await server?.close();
  await env?.cleanup();
  agent = undefined;
  server = undefined;
  env = undefined;
});

async function launcherAgent(): Promise<{ agent: Agent; home: string }> {
  server = await startOpenAIServer({ rules: [{ when: whenPromptSays("slow"), reply: { text: "too late", delayMs: 30_000 } }] });
  env = await codexTestEnv({ server });
  agent = new Agent(codexAcp(env, { command: process.execPath, args: [CODEX_ACP_LAUNCHER] }), { threadStore: new MemoryThreadStore() });
  return { agent, home: env.home };
}

describe("codex-acp through its Node launcher: no process outlives the run", () => {
  it("a turn answers, and once the agent is closed neither the launcher nor the native binary is left", async () => {
    const { agent, home } = await launcherAgent();
    const thread = agent.thread("parked");
    const stream = thread.stream("hello");
    const pids = spawnedPids(await collect(stream));
    await stream.result();
    expect((await processesWith(home)).length).toBeGreaterThanOrEqual(2); // the launcher and the native binary, parked
    await agent.close();
    expect(alive(pids[0]!)).toBe(false);
    expect(await processesWith(home)).toEqual([]);
  });

  it("cancel mid-turn: the verdict is the abort and neither process is left", async () => {
    const { agent, home } = await launcherAgent();
    await expectCancelLeavesNothing(agent, "slow one", home);
  });

  it("the launcher killed from outside (SIGKILL, not its group): agent_error, and its native child is ended too", async () => {
    const { agent, home } = await launcherAgent();
    const err = await killOnceStarted(agent, "slow one");
    expect(err).toBeInstanceOf(RunError);
    expect((err as RunError).details).toMatchObject({ exitSignal: "SIGKILL" });
    expect(await processesWith(home)).toEqual([]);
  });
});
