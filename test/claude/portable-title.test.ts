import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import { claudeTestEnv, startAnthropicServer, type AnthropicServer, type ClaudeTestEnv } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { claude } from "@adaptor/claude";
import { closedAfterEach } from "../support/closed-after-each.js";

// A title given with renameSession travels with a thread's portable session without the title file
// the CLI keeps beside the transcript (which is not carried): the transcript carries the
// `custom-title` entry, and claude itself writes the entry again at the transcript's end once later
// turns push it out of the last 64 KiB (where the CLI and the listings look for a title), so the
// title holds on the host the thread continues on.

const open = closedAfterEach();

async function host(s: AnthropicServer, store: ThreadStore): Promise<{ env: ClaudeTestEnv; agent: Agent }> {
  const env = await claudeTestEnv({ server: s });
  open.push({ close: () => env.cleanup() });
  const agent = new Agent(claude({ env: env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
    threadStore: store,
    cwd: env.workDir,
    workspace: "git@example.com:acme/app.git",
  });
  open.push(agent);
  return { env, agent };
}

function transcriptOf(configDir: string, sessionId: string): string {
  const projects = join(configDir, "projects");
  for (const folder of readdirSync(projects))
    if (existsSync(join(projects, folder, `${sessionId}.jsonl`))) return join(projects, folder, `${sessionId}.jsonl`);
  throw new Error(`no transcript of ${sessionId}`);
}

describe("claude: a session's title on another host (real binary)", { timeout: 240_000 }, () => {
  it("a title given on one host holds on the host the thread continues on, after the transcript has grown 64 KiB past its entry", async () => {
    const s = await startAnthropicServer({ rules: [] });
    open.push(s);
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const b = await host(s, store);
    const id = (await a.agent.thread("chat").run("turn one [t1]")).sessionId!;
    await a.agent.renameSession(id, "Titled on A");
    // The entry reaches the store with A's next turn.
    await a.agent.thread("chat").run("turn two [t2]");
    const entryAt = readFileSync(transcriptOf(a.env.configDir, id), "utf8").indexOf('"custom-title"');
    expect(entryAt).toBeGreaterThan(0);
    // B takes the stored transcript and goes on until the entry is out of its last 64 KiB.
    for (let turn = 3; ; turn++) {
      await b.agent.thread("chat").run(`turn ${turn} [t${turn}]`);
      if (statSync(transcriptOf(b.env.configDir, id)).size - entryAt > 96 * 1024) break;
      expect(turn).toBeLessThan(40);
    }
    // The CLI wrote the entry again near the transcript's end on B; B holds no title file.
    const onB = readFileSync(transcriptOf(b.env.configDir, id), "utf8");
    const entries = [...onB.matchAll(/"type":"custom-title","customTitle":"Titled on A"/g)].map((match) => match.index);
    expect(entries.at(-1)).toBeGreaterThan(onB.length - 64 * 1024);
    expect(existsSync(join(transcriptOf(b.env.configDir, id), "..", id, "custom-title.json"))).toBe(false);
    expect(await b.agent.getSessionInfo(id)).toMatchObject({ sessionId: id, title: "Titled on A" });
    expect((await b.agent.listSessions()).sessions.find((session) => session.sessionId === id)).toMatchObject({ title: "Titled on A" });
  });
});
