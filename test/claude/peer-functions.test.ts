import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, isNotice, type AgentEvent } from "adaptor";
import { claude } from "@adaptor/claude";
import { harness, type Harness } from "./support.js";

// What docs/migrating.md says of the Claude Agent SDK's session-file functions and `Query`
// methods that have no adaptor method of their own, on the real claude binary.

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

/** The peer's functions and `Query` methods for which adaptor has none (migrating.md says "none"). */
const NO_AGENT_METHOD = [
  "deleteSession",
  "archiveSession",
  "unarchiveSession",
  "getSubagentMessages",
  "listSubagents",
  "importSessionToStore",
  "resolveSettings",
];
const NO_STREAM_METHOD = [
  "setMaxThinkingTokens",
  "supportedAgents",
  "initializationResult",
  "updateSettings",
  "reinitialize",
  "reloadSkills",
  "reloadOutputStyles",
  "seedReadState",
  "setMcpServers",
  "toggleMcpServer",
  "reconnectMcpServer",
  "readMcpResource",
  "stopTask",
  "backgroundTasks",
  "streamInput",
  "mcpServerStatus",
];

describe("the peer's functions without an adaptor method of their own (real binary)", { timeout: 180_000 }, () => {
  it("deleteThread removes the thread from the store and leaves the CLI's transcript: getSessionMessages still reads it and adoptSession continues it", async () => {
    h = await harness([]);
    agent = new Agent(claude({ env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
      threadStore: new MemoryThreadStore(),
      cwd: h.env.workDir,
    });
    const first = await agent.thread("gone").run("kept in the transcript");
    const sessionId = first.sessionId!;
    expect(await agent.deleteThread("gone")).toEqual({ records: 1, approvals: 0 });
    expect((await agent.listThreads()).threads).toEqual([]);

    const projects = join(h.env.configDir, "projects");
    const folder = (await readdir(projects))[0]!;
    expect(await readdir(join(projects, folder))).toContain(`${sessionId}.jsonl`);
    expect((await agent.getSessionMessages(sessionId)).messages.map((m) => m.text)[0]).toBe("kept in the transcript");
    const again = await agent.thread("back", { adoptSession: sessionId }).run("still there?");
    expect(again.sessionId).toBe(sessionId);
  });

  it("a thread whose store keeps its session's files continues the same session after the CLI's files are deleted (as the peer's deleteSession does)", async () => {
    h = await harness([]);
    const store = new MemoryThreadStore();
    const open = (): Agent =>
      new Agent(claude({ env: h!.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), { threadStore: store, cwd: h!.env.workDir });
    agent = open();
    const first = await agent.thread("kept").run("first turn");
    await agent.close();
    const projects = join(h.env.configDir, "projects");
    const folder = join(projects, (await readdir(projects))[0]!);
    await rm(join(folder, `${first.sessionId!}.jsonl`));
    agent = open();
    const next = await agent.thread("kept").run("second turn");
    expect(next.sessionId).toBe(first.sessionId);
    expect(next.text).toContain("I saw 3 message(s)");
  });

  it("the run's subagents are named in the session.init notice (the peer's supportedAgents() / initializationResult())", async () => {
    h = await harness([]);
    const events: AgentEvent[] = [];
    const stream = h.agent.stream("hello", {
      agents: { "release-reviewer": { description: "Reviews release notes", prompt: "Judge tone only." } },
    });
    for await (const event of stream) events.push(event);
    await stream.result();
    const init = events.find((event) => isNotice(event, "session.init"));
    expect(init && isNotice(init, "session.init") ? init.data?.agents : undefined).toEqual(expect.arrayContaining(["release-reviewer"]));
  });

  it("neither the Agent nor a stream has the peer's methods migrating.md answers with none or another way", async () => {
    h = await harness([]);
    const stream = h.agent.stream("hello");
    for await (const _event of stream) void _event;
    await stream.result();
    const agentHas = NO_AGENT_METHOD.filter((name) => name in h!.agent);
    const streamHas = NO_STREAM_METHOD.filter((name) => name in stream);
    expect({ agentHas, streamHas }).toEqual({ agentHas: [], streamHas: [] });
    expect(typeof h.agent.prewarm).toBe("function");
    expect(typeof stream.send).toBe("function");
  });
});
