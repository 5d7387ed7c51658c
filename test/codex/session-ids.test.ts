import { readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, FeatureUnsupportedError, findError, isNotice, type AgentEvent, type Stream } from "adaptor";
import { codex } from "@adaptor/codex";
import { runDriver } from "@adaptor/driver/testing";
import { codexHarness, type CodexHarness } from "./support.js";

// The CLI's own thread id on the Result, on the real codex binary: the id its rollout file is named
// by, the one a thread's checkpoint resumes by.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Rollout files of thread `id` under `$CODEX_HOME/sessions`. */
function rollouts(codexHome: string, id: string): string[] {
  const root = join(codexHome, "sessions");
  return (readdirSync(root, { recursive: true }) as string[]).filter((path) => path.endsWith(`-${id}.jsonl`));
}

/** The stream's events and its Result. */
async function drain(stream: Stream): Promise<{ events: AgentEvent[]; sessionId: string | undefined }> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, sessionId: (await stream.result()).sessionId };
}

describe("codex thread id before the turn ends: the session.init notice (real binary)", { timeout: 120_000 }, () => {
  for (const transport of ["app-server", "exec"] as const) {
    it(`${transport}: each run's one session.init carries the thread id the Result reports, before the turn's first text`, async () => {
      h = await codexHarness();
      agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport }), {
        threadStore: new MemoryThreadStore(),
      });
      const thread = agent.thread("chat");
      for (const prompt of ["first thread turn", "second thread turn"]) {
        const { events, sessionId } = await drain(thread.stream(prompt));
        const inits = events.filter((event) => isNotice(event, "session.init"));
        expect(sessionId).toMatch(UUID);
        expect(inits.map((event) => (isNotice(event, "session.init") ? event.data?.sessionId : undefined))).toEqual([sessionId]);
        const firstText = events.findIndex((event) => event.type === "text-delta");
        expect(firstText).toBeGreaterThan(events.indexOf(inits[0]!));
        if (transport === "app-server") {
          const data = isNotice(inits[0]!, "session.init") ? inits[0].data : undefined;
          expect(data?.model).toEqual(expect.stringMatching(/./));
          expect([h.env.workDir, realpathSync(h.env.workDir)]).toContain(data?.cwd);
        }
      }
    });
  }
});

describe("codex thread id on the Result (real binary)", { timeout: 120_000 }, () => {
  for (const transport of ["app-server", "exec"] as const) {
    it(`${transport}: result.sessionId is codex's thread id: the rollout's name, the thread checkpoint's, kept across turns`, async () => {
      h = await codexHarness();
      agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport }), {
        threadStore: new MemoryThreadStore(),
      });
      const thread = agent.thread("chat");
      const first = await thread.run("first thread turn");
      expect(first.sessionId).toMatch(UUID);
      expect(rollouts(h.env.codexHome, first.sessionId!)).toHaveLength(1);
      expect((await thread.checkpoint())?.checkpoint.resumeId).toBe(first.sessionId);
      const second = await thread.run("second thread turn");
      expect(second.text).toContain("2 user message(s)");
      expect(second.sessionId).toBe(first.sessionId);
    });
  }
});

// `codex exec` cannot fork a codex thread (its descriptor says `sessions.fork: false`): a fork
// there would resume the parent's own thread, so parent and fork would share one conversation.
// On the real binary: refused before launch, nothing runs.

describe("codex exec: thread.fork() (real binary)", { timeout: 120_000 }, () => {
  it("is refused with FeatureUnsupportedError (feature fork): no model request, no lease, no store write, the parent untouched", async () => {
    h = await codexHarness();
    const store = new MemoryThreadStore();
    agent = new Agent(codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport: "exec" }), {
      threadStore: store,
    });
    const parent = agent.thread("parent");
    const first = await parent.run("parent turn");
    const before = await parent.checkpoint();
    expect(before?.checkpoint.resumeId).toBe(first.sessionId);
    const requests = h.server.requests.length;
    const acquire = vi.spyOn(store, "acquireLease");
    const finalize = vi.spyOn(store, "finalize");

    const refused = await parent
      .fork("child")
      .run("fork turn")
      .catch((e: unknown) => e);

    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature: "fork" });
    expect(h.server.requests.length).toBe(requests);
    expect(acquire).not.toHaveBeenCalled();
    expect(finalize).not.toHaveBeenCalled();
    expect(await agent.thread("child").checkpoint()).toBeUndefined();
    const after = await parent.checkpoint();
    expect({ id: after?.id, revision: after?.revision, resumeId: after?.checkpoint.resumeId }).toEqual({
      id: before?.id,
      revision: before?.revision,
      resumeId: first.sessionId,
    });
  });

  it("the driver itself refuses a fork request (session.fork) with FeatureUnsupportedError: no process, no model request", async () => {
    h = await codexHarness();
    const driver = codex({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, killGraceMs: 1000, transport: "exec" });
    const parent = await runDriver(driver, { prompt: "parent turn" });
    const resumeId = parent.response?.checkpoint?.resumeId;
    expect(resumeId).toBeDefined();
    expect(parent.recording.events.some((e) => e.event.type === "process")).toBe(true);
    const requests = h.server.requests.length;
    const forked = await runDriver(driver, { prompt: "fork turn", session: { resumeId: resumeId!, fork: true } });
    expect(findError(forked.error, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature: "fork" });
    expect(forked.recording.events.filter((e) => e.event.type === "process")).toEqual([]);
    expect(h.server.requests.length).toBe(requests);
  });
});
