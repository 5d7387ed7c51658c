import { describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer, whenUserSays } from "@adaptor/testkit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, ErrFeatureUnsupported, ErrResumeRejected, FeatureUnsupportedError, findError, isError } from "adaptor";
import { claudeAgentAcp } from "../src/index.js";
import { hostileAcp } from "./hostile-agent/hostile.js";

// One ACP session's record (agent.getSessionInfo) found through the agent's `session/list`: on the
// real claude-agent-acp, and on the scripted agent for paging and the capability; ACP has no
// session title or tag to set.

const CAPABLE = [
  { respond: { protocolVersion: 1, agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } }, authMethods: [] } },
];

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("acp: one session's record (session/list)", { timeout: 240_000 }, () => {
  it("claude-agent-acp: a session's record is the one its listing gives; an unknown id is ErrResumeRejected; rename and tag are FeatureUnsupported", async () => {
    const server = await startAnthropicServer({ rules: [{ when: whenUserSays("say hello"), reply: { text: "Hello." } }] });
    const env = await claudeTestEnv({ server });
    const agent = new Agent(claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }), {
      threadStore: new MemoryThreadStore(),
    });
    try {
      const id = (await agent.run("please say hello")).sessionId!;
      const listed = (await agent.listSessions()).sessions.find((session) => session.sessionId === id);
      expect(listed).toBeDefined();
      expect(await agent.getSessionInfo(id)).toEqual(listed);
      expect(isError(await failure(agent.getSessionInfo("00000000-0000-4000-8000-000000000000")), ErrResumeRejected)).toBe(true);
      for (const [call, feature] of [
        [() => agent.renameSession(id, "a title"), "renameSession"],
        [() => agent.tagSession(id, "a tag"), "tagSession"],
      ] as const) {
        const err = await failure(call());
        expect(isError(err, ErrFeatureUnsupported)).toBe(true);
        expect(findError(err, FeatureUnsupportedError)).toMatchObject({ feature });
      }
    } finally {
      await agent.close();
      await server.close();
      await env.cleanup();
    }
  });

  it("follows the agent's pages until one lists the session; an agent without session/list: FeatureUnsupportedError after initialize", async () => {
    const entry = (id: string) => ({ sessionId: id, cwd: "/work/app", title: `session ${id}`, updatedAt: "2026-12-07T06:00:00Z" });
    await using agent = new Agent(
      hostileAcp({
        initialize: CAPABLE,
        "session/list:": [{ respond: { sessions: ["a", "b"].map(entry), nextCursor: "page-2" } }],
        "session/list:page-2": [{ respond: { sessions: ["c"].map(entry), nextCursor: "page-2" } }],
      }),
    );
    expect(await agent.getSessionInfo("c")).toEqual({
      sessionId: "c",
      cwd: "/work/app",
      title: "session c",
      updatedAt: new Date("2026-12-07T06:00:00Z"),
    });
    // An agent repeating its cursor ends the search.
    expect(isError(await failure(agent.getSessionInfo("z")), ErrResumeRejected)).toBe(true);

    await using without = new Agent(hostileAcp({}));
    const err = await failure(without.getSessionInfo("a"));
    expect(isError(err, ErrFeatureUnsupported)).toBe(true);
    expect(findError(err, FeatureUnsupportedError)).toMatchObject({ driver: "hostile", feature: "getSessionInfo" });
  });
});
