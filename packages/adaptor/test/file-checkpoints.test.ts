import { afterEach, describe, expect, it } from "vitest";
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { MemoryThreadStore } from "@adaptor/threadstore";
import type { Driver, DriverRequest, DriverResponse, DriverSink } from "@adaptor/driver";
import {
  Agent,
  ErrFileCheckpoint,
  ErrThreadBusy,
  FeatureUnsupportedError,
  FileCheckpointError,
  InvalidOptionError,
  isError,
  type AgentEvent,
} from "adaptor";
import { scriptedDriver as plainScriptedDriver } from "./scripted-driver.js";

// Per-turn file checkpoints and thread.rewind() with a scripted driver whose "turns" edit the
// workspace: what a snapshot holds, what a rewind restores and leaves alone, and the refusals.

let root = "";
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = "";
});

type Edit = (cwd: string) => Promise<void>;

/** A scripted driver that, like Claude and Codex, resumes a session exactly at the checkpoint it is given. */
function scriptedDriver(
  script: (request: DriverRequest, sink: DriverSink, signal: AbortSignal) => Promise<Partial<DriverResponse>>,
): ReturnType<typeof plainScriptedDriver> {
  const driver = plainScriptedDriver(script);
  const { capabilities } = driver.descriptor;
  const descriptor: Driver["descriptor"] = {
    ...driver.descriptor,
    capabilities: { ...capabilities, sessions: { ...capabilities.sessions, fromCheckpoint: true } },
  };
  return Object.assign(driver, { descriptor });
}

/** A driver whose each turn applies the edit named by the prompt and checkpoints `turn-<n>`. */
function editingDriver(edits: Record<string, Edit>, gate?: Promise<void>) {
  let turns = 0;
  return scriptedDriver(async (request: DriverRequest) => {
    await edits[request.prompt]?.(request.cwd ?? "");
    await gate;
    turns += 1;
    return { text: `did ${request.prompt}`, checkpoint: { resumeId: "session-1", data: { turn: turns } } };
  });
}

async function workspace(): Promise<{ cwd: string; dir: string }> {
  root = await mkdtemp(path.join(tmpdir(), "adaptor-files-"));
  const cwd = path.join(root, "work");
  await mkdir(path.join(cwd, "bin"), { recursive: true });
  await mkdir(path.join(cwd, "ignored"));
  await writeFile(path.join(cwd, "keep.txt"), "keep\n");
  await writeFile(path.join(cwd, "gone.bin"), Buffer.from([0, 1, 2, 255, 254, 10, 13, 0]));
  await writeFile(path.join(cwd, "bin", "run.sh"), "#!/bin/sh\necho hi\n");
  await chmod(path.join(cwd, "bin", "run.sh"), 0o755);
  await writeFile(path.join(cwd, ".gitignore"), "ignored/\n");
  await writeFile(path.join(cwd, "ignored", "cache.txt"), "cache one\n");
  return { cwd, dir: path.join(root, "checkpoints") };
}

const TURN_TWO: Edit = async (cwd) => {
  await writeFile(path.join(cwd, "keep.txt"), "changed\n");
  await rm(path.join(cwd, "gone.bin"));
  await chmod(path.join(cwd, "bin", "run.sh"), 0o644);
  await writeFile(path.join(cwd, "new.txt"), "new\n");
  await mkdir(path.join(cwd, "sub", "deeper"), { recursive: true });
  await writeFile(path.join(cwd, "sub", "deeper", "x.txt"), "x\n");
  await writeFile(path.join(cwd, "ignored", "cache.txt"), "cache two\n");
};

describe("file checkpoints and thread.rewind()", () => {
  it("a runId that is not a UUID is refused with InvalidOptionError naming runId before the lease is taken or the checkpoints opened", async () => {
    const { cwd, dir } = await workspace();
    const store = new MemoryThreadStore();
    const agent = new Agent(editingDriver({}), { threadStore: store, cwd, checkpointFiles: { dir } });
    const thread = agent.thread("t");
    await thread.run("one");
    let leases = 0;
    const acquire = store.acquireLease.bind(store);
    store.acquireLease = (...args) => {
      leases += 1;
      return acquire(...args);
    };
    const before = await readdir(dir, { recursive: true });
    for (const runId of ["no-such-run", "", 42 as unknown as string]) {
      const error = await thread.rewind(runId).catch((e: unknown) => e);
      expect(error, String(runId)).toBeInstanceOf(InvalidOptionError);
      expect((error as InvalidOptionError).subject).toBe("thread.rewind()");
      expect((error as InvalidOptionError).field).toBe("runId");
    }
    expect(leases).toBe(0);
    expect(await readdir(dir, { recursive: true })).toEqual(before);
    await agent.close();
  });

  it("rewind restores written, deleted, created and mode-changed files byte for byte and the conversation checkpoint", async () => {
    const { cwd, dir } = await workspace();
    const store = new MemoryThreadStore();
    const agent = new Agent(editingDriver({ two: TURN_TWO }), { threadStore: store, cwd, checkpointFiles: { dir } });
    const thread = agent.thread("t");
    const one = await thread.run("one");
    const afterOne = await thread.checkpoint();
    const two = await thread.run("two");
    expect(await readFile(path.join(cwd, "keep.txt"), "utf8")).toBe("changed\n");
    expect((await thread.history()).map((turn) => [turn.runId, turn.prompt])).toEqual([
      [one.runId, "one"],
      [two.runId, "two"],
    ]);

    const { record: active, restored, kept } = await thread.rewind(two.runId);
    expect(restored).toEqual(["bin/run.sh", "gone.bin", "keep.txt", "new.txt", "sub/deeper/x.txt"]);
    expect(kept).toEqual([]);
    expect(active!.checkpoint).toEqual(afterOne?.checkpoint);
    expect(active!.revision).toBeGreaterThan(afterOne!.revision);
    expect((await thread.checkpoint())?.checkpoint.data).toEqual({ turn: 1 });
    expect(await readFile(path.join(cwd, "keep.txt"), "utf8")).toBe("keep\n");
    expect(await readFile(path.join(cwd, "gone.bin"))).toEqual(Buffer.from([0, 1, 2, 255, 254, 10, 13, 0]));
    expect((await stat(path.join(cwd, "bin", "run.sh"))).mode & 0o777).toBe(0o755);
    expect(existsSync(path.join(cwd, "new.txt"))).toBe(false);
    expect(existsSync(path.join(cwd, "sub"))).toBe(false);
    // Ignored by the project's .gitignore: neither captured nor restored.
    expect(await readFile(path.join(cwd, "ignored", "cache.txt"), "utf8")).toBe("cache two\n");
    expect((await thread.history()).map((turn) => turn.runId)).toEqual([one.runId]);

    // The next turn resumes from the restored checkpoint and is recorded after turn one.
    const three = await thread.run("three");
    expect((await thread.history()).map((turn) => turn.runId)).toEqual([one.runId, three.runId]);
    await agent.close();
  });

  it("rewinding a middle turn undoes it and every later one; the workspace's own .git is never snapshotted or touched", async () => {
    const { cwd, dir } = await workspace();
    execFileSync("git", ["init", "--quiet", cwd]);
    const edits: Record<string, Edit> = {
      two: async (at) => writeFile(path.join(at, "two.txt"), "2\n"),
      three: async (at) => {
        await writeFile(path.join(at, "three.txt"), "3\n");
        await writeFile(path.join(at, ".git", "turn-three-marker"), "3\n");
      },
    };
    const agent = new Agent(editingDriver(edits), { threadStore: new MemoryThreadStore(), cwd, checkpointFiles: { dir } });
    const thread = agent.thread("t");
    const one = await thread.run("one");
    const two = await thread.run("two");
    await thread.run("three");
    await thread.rewind(two.runId);
    expect(existsSync(path.join(cwd, "two.txt"))).toBe(false);
    expect(existsSync(path.join(cwd, "three.txt"))).toBe(false);
    expect(await readFile(path.join(cwd, ".git", "turn-three-marker"), "utf8")).toBe("3\n");
    expect((await thread.checkpoint())?.checkpoint.data).toEqual({ turn: 1 });
    expect((await thread.history()).map((turn) => turn.runId)).toEqual([one.runId]);
    await agent.close();
  });

  it("the checkpoint directory is never inside the workspace: the turn is refused before the driver starts", async () => {
    const { cwd } = await workspace();
    const driver = editingDriver({});
    const agent = new Agent(driver, { threadStore: new MemoryThreadStore(), cwd, checkpointFiles: { dir: path.join(cwd, ".snap") } });
    const error = await agent
      .thread("t")
      .run("one")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileCheckpointError);
    expect((error as FileCheckpointError).reason).toBe("inside_workspace");
    expect(isError(error, ErrFileCheckpoint)).toBe(true);
    expect(driver.requests).toHaveLength(0);
    await agent.close();
  });

  it("a missing git executable is a typed refusal before the driver starts", async () => {
    const { cwd, dir } = await workspace();
    const driver = editingDriver({});
    const agent = new Agent(driver, { threadStore: new MemoryThreadStore(), cwd, checkpointFiles: { dir, git: "no-such-git-here" } });
    const error = await agent
      .thread("t")
      .run("one")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileCheckpointError);
    expect((error as FileCheckpointError).reason).toBe("git_missing");
    expect(driver.requests).toHaveLength(0);
    await agent.close();
  });

  it("without a cwd option, or on a run outside a thread, checkpointFiles is refused before the driver starts", async () => {
    const driver = editingDriver({});
    const agent = new Agent(driver, { threadStore: new MemoryThreadStore(), checkpointFiles: true });
    const noCwd = await agent
      .thread("t")
      .run("one")
      .catch((e: unknown) => e);
    expect((noCwd as FileCheckpointError).reason).toBe("cwd_required");
    const noThread = await agent.run("one").catch((e: unknown) => e);
    expect(noThread).toBeInstanceOf(InvalidOptionError);
    expect((noThread as InvalidOptionError).field).toBe("checkpointFiles");
    expect(driver.requests).toHaveLength(0);
    await agent.close();
  });

  it("files over maxFileBytes are left out of the snapshot (notice files skipped) and never touched by a rewind", async () => {
    const { cwd, dir } = await workspace();
    await writeFile(path.join(cwd, "big.dat"), Buffer.alloc(2048, 7));
    const edits: Record<string, Edit> = {
      two: async (at) => {
        await writeFile(path.join(at, "big.dat"), Buffer.alloc(4096, 9));
        await writeFile(path.join(at, "keep.txt"), "changed\n");
      },
    };
    const agent = new Agent(editingDriver(edits), {
      threadStore: new MemoryThreadStore(),
      cwd,
      checkpointFiles: { dir, maxFileBytes: 1024 },
    });
    const thread = agent.thread("t");
    await thread.run("one");
    const events: AgentEvent[] = [];
    const stream = thread.stream("two");
    for await (const event of stream) events.push(event);
    const two = await stream.result();
    const skipped = events.find((event) => event.type === "notice" && event.message === "files skipped");
    expect(skipped?.type === "notice" && skipped.data?.skipped).toEqual(["big.dat"]);
    expect((await thread.history()).at(-1)?.skippedFiles).toEqual(["big.dat"]);
    await thread.rewind(two.runId);
    expect(await readFile(path.join(cwd, "keep.txt"), "utf8")).toBe("keep\n");
    expect(await readFile(path.join(cwd, "big.dat"))).toEqual(Buffer.alloc(4096, 9));
    await agent.close();
  });

  it("a driver that cannot resume from an earlier checkpoint (ACP) is refused with FeatureUnsupportedError before it starts", async () => {
    const { cwd, dir } = await workspace();
    const driver = plainScriptedDriver(async () => ({ text: "ok", checkpoint: { resumeId: "s" } }));
    const agent = new Agent(driver, { threadStore: new MemoryThreadStore(), cwd, checkpointFiles: { dir } });
    const thread = agent.thread("t");
    const error = await thread.run("one").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeatureUnsupportedError);
    expect((error as FeatureUnsupportedError).feature).toBe("checkpointFiles");
    expect(driver.requests).toHaveLength(0);
    await expect(thread.rewind("any")).rejects.toBeInstanceOf(FeatureUnsupportedError);
    await agent.close();
  });

  it("rewind touches only the paths the undone turns changed: files the person wrote between or after turns stay, and a path they changed after the last turn is kept and named", async () => {
    const { cwd, dir } = await workspace();
    const edits: Record<string, Edit> = {
      one: async (at) => writeFile(path.join(at, "a.txt"), "v1\n"),
      two: async (at) => {
        await writeFile(path.join(at, "a.txt"), "v2\n");
        await writeFile(path.join(at, "b.txt"), "b\n");
        await writeFile(path.join(at, "c.txt"), "c\n");
      },
    };
    const agent = new Agent(editingDriver(edits), { threadStore: new MemoryThreadStore(), cwd, checkpointFiles: { dir } });
    const thread = agent.thread("t");
    await thread.run("one");
    await writeFile(path.join(cwd, "notes.md"), "my own notes\n");
    const two = await thread.run("two");
    await writeFile(path.join(cwd, "later.md"), "written after turn two\n");
    await writeFile(path.join(cwd, "c.txt"), "c, edited by the person\n");

    const rewound = await thread.rewind(two.runId);
    expect(rewound.restored).toEqual(["a.txt", "b.txt"]);
    expect(rewound.kept).toEqual(["c.txt"]);
    expect(await readFile(path.join(cwd, "a.txt"), "utf8")).toBe("v1\n");
    expect(existsSync(path.join(cwd, "b.txt"))).toBe(false);
    expect(await readFile(path.join(cwd, "c.txt"), "utf8")).toBe("c, edited by the person\n");
    expect(await readFile(path.join(cwd, "notes.md"), "utf8")).toBe("my own notes\n");
    expect(await readFile(path.join(cwd, "later.md"), "utf8")).toBe("written after turn two\n");
    await agent.close();
  });

  it("undoing the second turn and then the first restores the files to before it and leaves the thread with no conversation: its next turn starts a fresh session", async () => {
    const { cwd, dir } = await workspace();
    const edits: Record<string, Edit> = {
      one: async (at) => {
        await writeFile(path.join(at, "a.txt"), "v1\n");
        await writeFile(path.join(at, "keep.txt"), "changed by one\n");
      },
      two: async (at) => writeFile(path.join(at, "a.txt"), "v2\n"),
    };
    const driver = editingDriver(edits);
    const store = new MemoryThreadStore();
    const agent = new Agent(driver, { threadStore: store, cwd, checkpointFiles: { dir } });
    const thread = agent.thread("t");
    const one = await thread.run("one");
    await writeFile(path.join(cwd, "notes.md"), "my own notes\n");
    const two = await thread.run("two");
    // One rewind after another: the record the first wrote back is the one the second finds.
    expect((await thread.rewind(two.runId)).restored).toEqual(["a.txt"]);
    expect(await readFile(path.join(cwd, "a.txt"), "utf8")).toBe("v1\n");

    const rewound = await thread.rewind(one.runId);
    expect(rewound.record).toBeUndefined();
    expect(rewound.restored).toEqual(["a.txt", "keep.txt"]);
    expect(rewound.kept).toEqual([]);
    expect(existsSync(path.join(cwd, "a.txt"))).toBe(false);
    expect(await readFile(path.join(cwd, "keep.txt"), "utf8")).toBe("keep\n");
    expect(await readFile(path.join(cwd, "notes.md"), "utf8")).toBe("my own notes\n");
    expect(await thread.checkpoint()).toBeUndefined();
    expect(await thread.history()).toEqual([]);

    const three = await thread.run("three");
    expect(driver.requests.at(-1)?.session).toBeUndefined();
    expect(driver.requests[1]?.session?.resumeId).toBe("session-1");
    expect((await thread.history()).map((turn) => turn.runId)).toEqual([three.runId]);
    await agent.close();
  });

  it("rewind refuses an unknown turn, a record that moved on without checkpoints, and a busy thread", async () => {
    const { cwd, dir } = await workspace();
    const store = new MemoryThreadStore();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const gated = { value: false };
    const driver = scriptedDriver(async (request) => {
      if (gated.value) await gate;
      return { text: "ok", checkpoint: { resumeId: "s", data: { prompt: request.prompt } } };
    });
    const agent = new Agent(driver, { threadStore: store, cwd, checkpointFiles: { dir } });
    const thread = agent.thread("t");
    await thread.run("one");
    const two = await thread.run("two");
    const reason = (e: unknown): string | undefined => (e instanceof FileCheckpointError ? e.reason : undefined);
    expect(reason(await thread.rewind("0190a6c8-7b3e-7c4d-8e5f-6a7b8c9d0e1f").catch((e: unknown) => e))).toBe("turn_not_found");

    gated.value = true;
    const running = thread.run("three");
    // The turn holds the lease while the driver waits at the gate.
    await expect.poll(() => driver.requests.length, { timeout: 10_000 }).toBe(3);
    const busy = await thread.rewind(two.runId).catch((e: unknown) => e);
    expect(isError(busy, ErrThreadBusy)).toBe(true);
    open();
    await running;

    // A turn without checkpointFiles moves the record on: the history no longer describes it.
    await thread.run("four", { checkpointFiles: false });
    const before = await thread.checkpoint();
    expect(reason(await thread.rewind(two.runId).catch((e: unknown) => e))).toBe("diverged");
    expect((await thread.checkpoint())?.revision).toBe(before?.revision);
    expect(await readdir(cwd)).toContain("keep.txt");
    await agent.close();
  });
});
