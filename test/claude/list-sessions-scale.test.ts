import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { open as openFile, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { claudeTestEnv, startAnthropicServer } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { claude, defaultClaudeCommand } from "@adaptor/claude";
import { closedAfterEach } from "../support/closed-after-each.js";

// A CLI home with many sessions, and a transcript of a gigabyte: a page reads only the ends of the
// transcripts it lists. The transcripts are made from one the real CLI wrote.

const open = closedAfterEach();
const GIB = 1024 * 1024 * 1024;

/** A home, and the lines of a transcript the real CLI wrote in it. */
async function realTranscript(): Promise<{ agent: Agent; folder: string; sessionId: string; lines: string[] }> {
  const s = await startAnthropicServer({ rules: [] });
  open.push(s);
  const env = await claudeTestEnv({ server: s });
  open.push({ close: () => env.cleanup() });
  const { stdout } = await promisify(execFile)(
    defaultClaudeCommand(),
    ["-p", "the real one", "--output-format", "json", "--model", "claude-sonnet-4-5"],
    {
      cwd: env.workDir,
      env: env.env as NodeJS.ProcessEnv,
      timeout: 60_000,
    },
  );
  const sessionId = (JSON.parse(stdout) as { session_id: string }).session_id;
  const projects = join(env.configDir, "projects");
  const folder = join(projects, (await readdir(projects))[0]!);
  const lines = (await readFile(join(folder, `${sessionId}.jsonl`), "utf8")).split("\n").filter(Boolean);
  const agent = new Agent(claude({ env: env.env, inheritEnv: false }));
  open.push(agent);
  return { agent, folder, sessionId, lines };
}

/** The real transcript's lines as another session's: its id, and its prompt in place of the real one. */
function asSession(lines: readonly string[], from: string, to: string, prompt: string): string[] {
  return lines.map((line) => line.replaceAll(from, to).replaceAll("the real one", prompt));
}

describe("claude: listing sessions at scale (real transcript format)", { timeout: 240_000 }, () => {
  it("a home with 10,000 transcripts: a page opens only the transcripts it lists, newest first, and the next page goes on", async () => {
    const { agent, folder, sessionId, lines } = await realTranscript();
    // Small sessions: the real transcript's user entry and its last-prompt entry.
    const kept = [
      lines.find((line) => line.startsWith('{"parentUuid":null')),
      lines.findLast((line) => line.startsWith('{"type":"last-prompt"')),
    ].filter((line) => line !== undefined);
    expect(kept).toHaveLength(2);
    const now = Date.now() / 1000;
    const newest: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const id = randomUUID();
      const path = join(folder, `${id}.jsonl`);
      // The 100 newest are sessions; every older one is garbage: had a page opened it, it would be in `skipped`.
      await writeFile(path, i < 100 ? `${asSession(kept, sessionId, id, `prompt ${i}`).join("\n")}\n` : "garbage\n");
      await utimes(path, now - 3600 - i, now - 3600 - i);
      if (i < 100) newest.push(id);
    }
    const first = await agent.listSessions();
    expect(first.sessions.map((session) => session.sessionId)).toEqual([sessionId, ...newest.slice(0, 99)]);
    expect(first.sessions[1]).toMatchObject({ firstPrompt: "prompt 0", title: "prompt 0" });
    expect(first.skipped).toEqual([]);
    const second = await agent.listSessions({ cursor: first.nextCursor! });
    expect(second.sessions.map((session) => session.sessionId)).toEqual([newest[99]]);
    expect(second.skipped).toHaveLength(99);
    expect(second.nextCursor).toEqual(expect.any(String));
  });

  it("a transcript of more than a gigabyte is listed from its first and last bytes: first prompt, title and size", async () => {
    const { agent, folder, sessionId, lines } = await realTranscript();
    const id = randomUUID();
    const head = `${asSession(lines, sessionId, id, "the long one").join("\n")}\n`;
    // A sparse file: the head, a gigabyte of nothing (as one line no reader can parse), the tail.
    const tail = `\n${JSON.stringify({ type: "custom-title", customTitle: "a very long session", sessionId: id })}\n`;
    const file = await openFile(join(folder, `${id}.jsonl`), "w");
    try {
      await file.write(head, 0);
      await file.write(tail, GIB);
    } finally {
      await file.close();
    }
    const page = await agent.listSessions();
    const long = page.sessions.find((session) => session.sessionId === id);
    expect(long).toMatchObject({ firstPrompt: "the long one", title: "a very long session", bytes: GIB + Buffer.byteLength(tail) });
    expect(page.skipped).toEqual([]);
  });
});
