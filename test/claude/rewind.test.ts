import { afterEach, describe, expect, it } from "vitest";
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { MemoryThreadStore } from "@adaptor/threadstore";
import type { LoggedRequest } from "@adaptor/testkit";
import { Agent } from "adaptor";
import { harness, type Harness } from "./support.js";

// Undo a turn on the real claude binary: a turn runs a shell command that writes, deletes and
// creates files; thread.rewind() puts the workspace back byte for byte and the conversation back at
// the checkpoint the turn started from, so the next turn's model request carries no trace of it.

let h: Harness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

const BINARY = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0, 42]);

function requestsFor(requests: readonly LoggedRequest[], marker: string): LoggedRequest[] {
  return requests.filter((request) => request.view.lastUserText.includes(marker));
}

describe("thread.rewind() on the real claude binary", { timeout: 180_000 }, () => {
  it("restores the files a Bash turn wrote and deleted, and the next turn's request carries nothing of it", async () => {
    h = await harness();
    const cwd = h.env.workDir;
    await writeFile(join(cwd, "keep.txt"), "keep\n");
    await writeFile(join(cwd, "gone.bin"), BINARY);
    await mkdir(join(cwd, "bin"));
    await writeFile(join(cwd, "bin", "run.sh"), "#!/bin/sh\n");
    await chmod(join(cwd, "bin", "run.sh"), 0o755);
    agent = new Agent(h.agent.driver, {
      threadStore: new MemoryThreadStore(),
      cwd,
      checkpointFiles: { dir: join(h.env.root, "checkpoints") },
      onApproval: (request) => request.approve(),
    });
    const thread = agent.thread("undo");
    expect((await thread.run("turn one marker-alpha")).text).toMatch(/I saw 1 message/);

    const undone = await thread.run(
      "SHELL_CMD printf 'changed' > keep.txt; rm gone.bin; echo new > new.txt; mkdir -p sub && echo deep > sub/deep.txt; chmod 644 bin/run.sh; echo undone-marker",
    );
    expect(undone.text).toContain("undone-marker");
    expect(await readFile(join(cwd, "keep.txt"), "utf8")).toBe("changed");
    expect(existsSync(join(cwd, "gone.bin"))).toBe(false);
    expect((await thread.history()).map((turn) => turn.runId)).toHaveLength(2);

    await thread.rewind(undone.runId);
    expect(await readFile(join(cwd, "keep.txt"), "utf8")).toBe("keep\n");
    expect(await readFile(join(cwd, "gone.bin"))).toEqual(BINARY);
    expect((await stat(join(cwd, "bin", "run.sh"))).mode & 0o777).toBe(0o755);
    expect(existsSync(join(cwd, "new.txt"))).toBe(false);
    expect(existsSync(join(cwd, "sub"))).toBe(false);

    const next = await thread.run("turn three marker-gamma");
    expect(next.text).toMatch(/I saw 3 message/); // turn one, its reply, turn three
    const requests = requestsFor(h.server.requests, "marker-gamma");
    expect(requests).toHaveLength(1);
    const body = JSON.stringify(requests[0]!.body);
    expect(body).toContain("marker-alpha");
    expect(body).not.toContain("undone-marker");
    expect(body).not.toContain("SHELL_CMD");
    expect((await thread.history()).map((turn) => turn.prompt)).toEqual(["turn one marker-alpha", "turn three marker-gamma"]);
  });

  it("leaves the files the person wrote between and after turns, and undoing the first turn leaves no conversation: the next turn starts fresh", async () => {
    h = await harness();
    const cwd = h.env.workDir;
    agent = new Agent(h.agent.driver, {
      threadStore: new MemoryThreadStore(),
      cwd,
      checkpointFiles: { dir: join(h.env.root, "checkpoints") },
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

    const fresh = await thread.run("turn three marker-delta");
    expect(fresh.text).toMatch(/I saw 1 message/);
    expect(fresh.sessionId).not.toBe(one.sessionId);
    const body = JSON.stringify(requestsFor(h.server.requests, "marker-delta")[0]!.body);
    expect(body).not.toContain("first-marker");
    expect((await thread.history()).map((turn) => turn.prompt)).toEqual(["turn three marker-delta"]);
  });
});
