import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import {
  claudeTestEnv,
  startAnthropicServer,
  whenToolResult,
  whenUserSays,
  type AnthropicServer,
  type ClaudeTestEnv,
} from "@adaptor/testkit";
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { PendingApprovalStore, ThreadStore } from "@adaptor/threadstore";
import { SqliteThreadStore } from "@adaptor/threadstore-sqlite";
import { PostgresThreadStore } from "@adaptor/threadstore-postgres";
import { alive } from "./support.js";

// A turn that waits on a human survives a restart, on the real claude binary: host A (its own Node
// process and CLI home) suspends a turn on its Write approval and exits; host B (another process,
// another CLI home, the same SQLite or PostgreSQL store) lists the approval, approves it, and the
// turn completes there: the file is written once and the checkpoint advances once. The PostgreSQL
// variant needs ADAPTOR_TEST_PG_URL (scripts/with-postgres.sh) and skips without it.
// Host B's CLI home starts empty: the conversation reaches it through the store (portable sessions).

const PG_URL = process.env.ADAPTOR_TEST_PG_URL;

type StoreJob = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string; schema: string };

/** A fresh store of `kind` for both hosts: its job description and a handle for the test itself. */
async function freshStore(
  kind: "sqlite" | "postgres",
  dir: string,
): Promise<{ job: StoreJob; open: () => ThreadStore & PendingApprovalStore; drop: () => Promise<void> }> {
  if (kind === "sqlite") {
    const path = join(dir, "threads.db");
    await new SqliteThreadStore({ path }).close();
    return { job: { kind, path }, open: () => new SqliteThreadStore({ path }), drop: async () => undefined };
  }
  const schema = `suspend_${randomBytes(6).toString("hex")}`;
  const admin = new PostgresThreadStore({ connectionString: PG_URL!, schema });
  await admin.migrate();
  await admin.close();
  return {
    job: { kind, url: PG_URL!, schema },
    open: () => new PostgresThreadStore({ connectionString: PG_URL!, schema }),
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_URL! });
      await client.connect();
      await client.query(`DROP SCHEMA "${schema}" CASCADE`);
      await client.end();
    },
  };
}

const run = promisify(execFile);
const testDir = fileURLToPath(new URL("..", import.meta.url));

let server: AnthropicServer | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await server?.close();
  server = undefined;
});

interface HostReport {
  readonly pid: number;
  readonly [field: string]: unknown;
}

/** Runs one host process to its end and returns its report (its last stdout line). */
async function host(job: Record<string, unknown>): Promise<HostReport> {
  const { stdout } = await run(process.execPath, ["--conditions=source", "--import", "tsx", "claude/fixtures/suspend-host.ts"], {
    cwd: testDir,
    env: { ...process.env, SUSPEND_HOST: JSON.stringify(job) },
    timeout: 100_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const lines = stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]!) as HostReport;
}

describe.each(["sqlite", "postgres"] as const)("a suspended turn resumes on another host (%s store)", { timeout: 240_000 }, (kind) => {
  it.skipIf(kind === "postgres" && !PG_URL)(
    "host A suspends on a Write approval and exits; host B lists it, approves it, the file is written once and the checkpoint advances once",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "adaptor-suspend-"));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      let notes = "";
      server = await startAnthropicServer({
        rules: [
          { name: "done", when: whenToolResult("Write"), reply: { text: "Wrote the notes." } },
          {
            name: "write",
            when: whenUserSays("please write the notes"),
            reply: () => ({ toolUse: { name: "Write", input: { file_path: notes, content: "written once\n" } } }),
          },
        ],
      });
      const envA = await claudeTestEnv({ server });
      const envB = await claudeTestEnv({ server });
      cleanups.push(
        () => envA.cleanup(),
        () => envB.cleanup(),
      );
      const cwd = envA.workDir; // one workspace: the thread's fingerprint includes it
      notes = join(cwd, "notes.md");
      const hostEnv = (env: ClaudeTestEnv): Record<string, string> => env.env;
      const shared = await freshStore(kind, dir);
      cleanups.push(() => shared.drop());

      const a = await host({ role: "start", store: shared.job, key: "notes-thread", cwd, env: hostEnv(envA) });
      expect(alive(a.pid)).toBe(false);
      expect(a.firstText).toMatch(/Fake reply/);
      expect(a.status).toBe("suspended");
      const pending = a.pendingApproval as {
        id: string;
        kind: string;
        toolName: string;
        input: unknown;
        status: string;
        checkpoint: unknown;
      };
      const afterFirst = a.afterFirst as { id: string; revision: number; resumeId: string };
      expect(pending).toMatchObject({
        kind: "permission",
        toolName: "Write",
        input: { file_path: notes, content: "written once\n" },
        status: "pending",
      });
      expect(pending.checkpoint).toEqual({ recordId: afterFirst.id, revision: afterFirst.revision });
      expect(a.afterSecond).toEqual({ id: afterFirst.id, revision: afterFirst.revision }); // nothing committed by the suspension
      expect(existsSync(notes)).toBe(false);

      expect(existsSync(join(envB.configDir, "projects"))).toBe(false); // host B has never seen the conversation
      const b = await host({ role: "answer", store: shared.job, key: "notes-thread", cwd, env: hostEnv(envB) });
      expect(alive(b.pid)).toBe(false);
      expect((b.listed as { id: string }[]).map((l) => l.id)).toEqual([pending.id]);
      expect(b.status).toBe("completed");
      expect(b.text).toBe("Wrote the notes.");
      expect(b.asked).toEqual([]); // the stored answer was applied without asking
      expect(b.notices).toContain("approval.replayed");
      expect(b.lifecycle).toContain("session restored"); // turn 1's transcript came from the store
      expect(b.pendingAfter).toEqual([]);
      expect(b.after).toEqual({ id: afterFirst.id, revision: afterFirst.revision + 1, resumeId: afterFirst.resumeId });
      expect(readFileSync(notes, "utf8")).toBe("written once\n");
      // The Write ran once in all: exactly one successful Write tool result reached the model.
      const writeResults = server.requests.filter((r) => r.view.lastToolResult?.toolName === "Write");
      expect(writeResults.map((r) => r.view.lastToolResult?.isError)).toEqual([false]);
      // The model call of the suspended turn was made twice (once per host), the first turn's once.
      expect(server.requests.filter((r) => r.rule === "write")).toHaveLength(2);

      const store = shared.open();
      cleanups.push(() => store.close());
      expect((await store.getPendingApproval(pending.id))?.status).toBe("closed");
    },
  );
});
