import { describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer, whenUserSays } from "@adaptor/testkit";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, ErrFeatureUnsupported, FeatureUnsupportedError, InvalidOptionError, findError, isError } from "adaptor";
import { claudeAgentAcp } from "../src/index.js";
import { hostileAcp } from "./hostile-agent/hostile.js";

// Listing an ACP agent's sessions through `session/list`: on the real claude-agent-acp (which
// offers it), and on the scripted agent for what the protocol leaves to the agent (no page size,
// no capability).

const CAPABLE = [
  { respond: { protocolVersion: 1, agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } }, authMethods: [] } },
];

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("acp: listing the agent's sessions (session/list)", { timeout: 240_000 }, () => {
  it("claude-agent-acp: its own sessions are listed with their ids, cwd, titles and times, filtered by cwd, paged by limit and cursor", async () => {
    const server = await startAnthropicServer({
      rules: [{ when: whenUserSays("say hello"), reply: { text: "Hello from the scripted model." } }],
    });
    const env = await claudeTestEnv({ server });
    const agent = new Agent(claudeAgentAcp({ cwd: env.workDir, env: env.env, inheritEnv: false }), {
      threadStore: new MemoryThreadStore(),
    });
    try {
      const first = (await agent.run("please say hello")).sessionId!;
      const second = (await agent.run("please say hello once more")).sessionId!;
      const page = await agent.listSessions();
      expect(new Set(page.sessions.map((session) => session.sessionId))).toEqual(new Set([first, second]));
      for (const session of page.sessions) {
        expect(session.cwd).toBe(env.workDir);
        expect(session.updatedAt).toBeInstanceOf(Date);
        expect(session.title).toEqual(expect.any(String));
      }
      expect(page.skipped).toEqual([]);
      expect((await agent.listSessions({ cwd: env.root })).sessions).toEqual([]);
      const one = await agent.listSessions({ limit: 1 });
      expect(one.sessions).toHaveLength(1);
      const rest = await agent.listSessions({ limit: 1, cursor: one.nextCursor! });
      expect([...one.sessions, ...rest.sessions].map((session) => session.sessionId)).toEqual(
        page.sessions.map((session) => session.sessionId),
      );
      expect(rest.nextCursor).toBeUndefined();
    } finally {
      await agent.close();
      await server.close();
      await env.cleanup();
    }
  });

  it("an agent whose initialize answer does not offer session/list: FeatureUnsupportedError after initialize", async () => {
    await using agent = new Agent(hostileAcp({}));
    const err = await failure(agent.listSessions());
    expect(isError(err, ErrFeatureUnsupported)).toBe(true);
    expect(findError(err, FeatureUnsupportedError)).toMatchObject({ driver: "hostile", feature: "listSessions" });
  });

  it("the agent's pages are cut to the host's limit and followed through its cursors, without repeats or losses", async () => {
    const entry = (id: string) => ({ sessionId: id, cwd: "/work/app", title: `session ${id}`, updatedAt: "2026-12-07T06:00:00Z" });
    const capable = [
      { respond: { protocolVersion: 1, agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } }, authMethods: [] } },
    ];
    await using agent = new Agent(
      hostileAcp({
        initialize: capable,
        "session/list:": [{ respond: { sessions: ["a", "b", "c"].map(entry), nextCursor: "page-2" } }],
        "session/list:page-2": [{ respond: { sessions: ["d", "e"].map(entry), nextCursor: null } }],
      }),
    );
    const seen: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await agent.listSessions({ limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(page.sessions.map((session) => session.sessionId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([["a", "b"], ["c", "d"], ["e"]]);
    expect((await agent.listSessions()).sessions[0]).toEqual({
      sessionId: "a",
      cwd: "/work/app",
      title: "session a",
      updatedAt: new Date("2026-12-07T06:00:00Z"),
    });
    // The cwd filters the listing (the agent's own filter: this one has none); the agent is not started there.
    const filtered = await agent.listSessions({ cwd: "/nonexistent/app" });
    expect(filtered.sessions.map((session) => session.sessionId)).toEqual(["a", "b", "c", "d", "e"]);
    const bad = await failure(agent.listSessions({ cursor: "not-a-cursor" }));
    expect(findError(bad, InvalidOptionError)).toMatchObject({ field: "cursor" });
  });

  it("an agent answering a cursor it gave already ends the listing instead of reading it forever", { timeout: 60_000 }, async () => {
    const entry = (id: string) => ({ sessionId: id, cwd: "/work/app" });
    await using agent = new Agent(
      hostileAcp({
        initialize: CAPABLE,
        "session/list:": [{ respond: { sessions: [entry("a")], nextCursor: "again" } }],
        "session/list:again": [{ respond: { sessions: [{ title: "no id" }], nextCursor: "again" } }],
      }),
    );
    const page = await agent.listSessions();
    expect(page.sessions.map((session) => session.sessionId)).toEqual(["a"]);
    expect(page.nextCursor).toBeUndefined();
  });

  it("endless empty agent pages: one listing reads at most 10 of them and gives the cursor reached", { timeout: 60_000 }, async () => {
    // Pages p0 … p24 hold nothing; p25 holds the one session.
    const scenario: Record<string, unknown[]> = { initialize: CAPABLE };
    for (let i = 0; i < 25; i++)
      scenario[`session/list:${i === 0 ? "" : `p${i}`}`] = [{ respond: { sessions: [], nextCursor: `p${i + 1}` } }];
    scenario["session/list:p25"] = [{ respond: { sessions: [{ sessionId: "last" }], nextCursor: null } }];
    await using agent = new Agent(hostileAcp(scenario));
    const pages = [];
    let cursor: string | undefined;
    do {
      const page = await agent.listSessions(cursor ? { cursor } : {});
      pages.push(page.sessions.map((session) => session.sessionId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages).toEqual([[], [], ["last"]]);
  });
});
