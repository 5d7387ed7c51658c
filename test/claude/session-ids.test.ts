import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, transcriptFiles, type Harness } from "./support.js";

// The CLI's own session id on the Result, on the real claude binary: the id its transcript file is
// named by, the one a thread's checkpoint resumes by.

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function threadAgent(harnessed: Harness, store: MemoryThreadStore): Agent {
  return new Agent(claude({ cwd: harnessed.env.workDir, env: harnessed.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    threadStore: store,
  });
}

describe("claude session id on the Result (real binary)", { timeout: 120_000 }, () => {
  it("result.sessionId is claude's session_id: the terminal line's, the transcript file's name, the thread checkpoint's", async () => {
    h = await harness();
    const store = new MemoryThreadStore();
    agent = threadAgent(h, store);
    const thread = agent.thread("chat");
    const first = await thread.run("first turn");
    expect(first.sessionId).toMatch(UUID);
    expect((JSON.parse(first.raw().terminal!.json) as { session_id: string }).session_id).toBe(first.sessionId);
    expect(transcriptFiles(h.env.configDir, first.sessionId!)).toHaveLength(1);
    expect((await thread.checkpoint())?.checkpoint.resumeId).toBe(first.sessionId);
    const second = await thread.run("second turn");
    expect(second.text).toMatch(/I saw 3 message/);
    expect(second.sessionId).toBe(first.sessionId);
    const fork = await thread.fork("branch").run("in the branch");
    expect(fork.sessionId).toMatch(UUID);
    expect(fork.sessionId).not.toBe(first.sessionId);
    expect((await agent.thread("branch").checkpoint())?.checkpoint.resumeId).toBe(fork.sessionId);
  });

  it("a one-shot run reports its session id too", async () => {
    h = await harness();
    const result = await h.agent.run("hello");
    expect(result.sessionId).toMatch(UUID);
    expect(transcriptFiles(h.env.configDir, result.sessionId!)).toHaveLength(1);
  });
});
