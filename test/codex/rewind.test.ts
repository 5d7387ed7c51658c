import { afterEach, describe, expect, it } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { codexTestEnv, startOpenAIServer, type CodexTestEnv, type OpenAIServer } from "@adaptor/testkit";
import { Agent, policyWorkspaceWrite } from "adaptor";
import { codex, type CodexTransport } from "@adaptor/codex";

// Undo a turn on the real codex binary (both transports): a turn runs a shell command that writes,
// deletes and creates files; thread.rewind() puts the workspace back byte for byte and the
// conversation back at the checkpoint the turn started from (codex drops the later turns), so the
// next turn's model request carries no trace of the undone turn.

let server: OpenAIServer | undefined;
let env: CodexTestEnv | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await server?.close();
  await env?.cleanup();
  server = env = agent = undefined;
});

const BINARY = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0, 42]);

describe("thread.rewind() on the real codex binary", { timeout: 240_000 }, () => {
  it.each<CodexTransport>(["app-server", "exec"])(
    "%s: restores the files a shell turn wrote and deleted, and the next turn's request carries nothing of it",
    async (transport) => {
      server = await startOpenAIServer({ rules: [] });
      env = await codexTestEnv({ server });
      const cwd = env.workDir;
      await writeFile(join(cwd, "keep.txt"), "keep\n");
      await writeFile(join(cwd, "gone.bin"), BINARY);
      const driver = codex({ cwd, env: env.env, inheritEnv: false, killGraceMs: 1000, transport });
      agent = new Agent(driver, {
        threadStore: new MemoryThreadStore(),
        cwd,
        checkpointFiles: { dir: join(env.root, "checkpoints") },
        policy: policyWorkspaceWrite,
        onApproval: (request) => request.approve(),
      });
      const thread = agent.thread("undo");
      await thread.run("turn one marker-alpha");

      const undone = await thread.run(
        "SHELL_CMD printf 'changed' > keep.txt; rm gone.bin; echo new > new.txt; mkdir -p sub && echo deep > sub/deep.txt; echo undone-marker",
      );
      expect(await readFile(join(cwd, "keep.txt"), "utf8")).toBe("changed");
      expect(existsSync(join(cwd, "gone.bin"))).toBe(false);
      expect(existsSync(join(cwd, "sub", "deep.txt"))).toBe(true);

      await thread.rewind(undone.runId);
      expect(await readFile(join(cwd, "keep.txt"), "utf8")).toBe("keep\n");
      expect(await readFile(join(cwd, "gone.bin"))).toEqual(BINARY);
      expect(existsSync(join(cwd, "new.txt"))).toBe(false);
      expect(existsSync(join(cwd, "sub"))).toBe(false);

      const before = server.responses().length;
      await thread.run("turn three marker-gamma");
      const requests = server.responses().slice(before);
      expect(requests.map((request) => request.view.userTexts)).toEqual([["turn one marker-alpha", "turn three marker-gamma"]]);
      const body = JSON.stringify(requests[0]!.body);
      expect(body).not.toContain("undone-marker");
      expect(body).not.toContain("SHELL_CMD");
      expect((await thread.history()).map((turn) => turn.prompt)).toEqual(["turn one marker-alpha", "turn three marker-gamma"]);
    },
  );

  it.each<CodexTransport>(["app-server", "exec"])(
    "%s: leaves the files the person wrote between and after turns, and undoing the first turn leaves no conversation: the next turn starts fresh",
    async (transport) => {
      server = await startOpenAIServer({ rules: [] });
      env = await codexTestEnv({ server });
      const cwd = env.workDir;
      const driver = codex({ cwd, env: env.env, inheritEnv: false, killGraceMs: 1000, transport });
      agent = new Agent(driver, {
        threadStore: new MemoryThreadStore(),
        cwd,
        checkpointFiles: { dir: join(env.root, "checkpoints") },
        policy: policyWorkspaceWrite,
        onApproval: (request) => request.approve(),
      });
      const thread = agent.thread("undo-all");
      const one = await thread.run("SHELL_CMD echo v1 > a.txt; echo first-marker");
      await writeFile(join(cwd, "notes.md"), "my own notes\n");
      const two = await thread.run("SHELL_CMD echo v2 > a.txt; echo b > b.txt; echo second-marker");
      await writeFile(join(cwd, "later.md"), "written after turn two\n");

      const undoTwo = await thread.rewind(two.runId);
      expect([undoTwo.restored, undoTwo.kept]).toEqual([["a.txt", "b.txt"], []]);
      expect(await readFile(join(cwd, "a.txt"), "utf8")).toBe("v1\n");
      expect(existsSync(join(cwd, "b.txt"))).toBe(false);

      const undoOne = await thread.rewind(one.runId);
      expect(undoOne.record).toBeUndefined();
      expect(undoOne.restored).toEqual(["a.txt"]);
      expect(existsSync(join(cwd, "a.txt"))).toBe(false);
      expect(await readFile(join(cwd, "notes.md"), "utf8")).toBe("my own notes\n");
      expect(await readFile(join(cwd, "later.md"), "utf8")).toBe("written after turn two\n");
      expect(await thread.checkpoint()).toBeUndefined();

      const before = server.responses().length;
      const fresh = await thread.run("turn three marker-delta");
      expect(fresh.sessionId).not.toBe(one.sessionId);
      const requests = server.responses().slice(before);
      expect(requests.map((request) => request.view.userTexts)).toEqual([["turn three marker-delta"]]);
      expect(JSON.stringify(requests[0]!.body)).not.toContain("first-marker");
      expect((await thread.history()).map((turn) => turn.prompt)).toEqual(["turn three marker-delta"]);
    },
  );
});
