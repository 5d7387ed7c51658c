import { afterEach, describe, expect, it } from "vitest";
import { chmod, lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MemoryThreadStore } from "@adaptor/threadstore";
import type { Driver, DriverRequest } from "@adaptor/driver";
import { Agent, FileCheckpointError } from "adaptor";
import { scriptedDriver as plainScriptedDriver } from "./scripted-driver.js";

// thread.rewind() never reaches past the workspace, never deletes what the person put in place of
// a path since, and restores a path from the turn that first changed it.

let root = "";
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = "";
});

type Edit = (cwd: string) => Promise<void>;

/** A driver resuming at any checkpoint whose each turn applies the edit named by the prompt. */
function editingDriver(edits: Record<string, Edit>) {
  let turns = 0;
  const driver = plainScriptedDriver(async (request: DriverRequest) => {
    await edits[request.prompt]?.(request.cwd ?? "");
    turns += 1;
    return { text: `did ${request.prompt}`, checkpoint: { resumeId: "session-1", data: { turn: turns } } };
  });
  const { capabilities } = driver.descriptor;
  const descriptor: Driver["descriptor"] = {
    ...driver.descriptor,
    capabilities: { ...capabilities, sessions: { ...capabilities.sessions, fromCheckpoint: true } },
  };
  return Object.assign(driver, { descriptor });
}

async function workspace(): Promise<{ cwd: string; dir: string }> {
  root = await mkdtemp(path.join(tmpdir(), "adaptor-rewind-safety-"));
  const cwd = path.join(root, "work");
  await mkdir(cwd);
  await writeFile(path.join(cwd, "notes"), "orig\n");
  return { cwd, dir: path.join(root, "checkpoints") };
}

function agentFor(edits: Record<string, Edit>, cwd: string, dir: string): Agent {
  return new Agent(editingDriver(edits), { threadStore: new MemoryThreadStore(), cwd, checkpointFiles: { dir } });
}

describe("thread.rewind() and the workspace as the person left it", () => {
  it("a folder the person replaced with a symbolic link to a folder outside is not followed: the file outside stays and the path is kept", async () => {
    const { cwd, dir } = await workspace();
    const outside = path.join(root, "outside");
    await mkdir(outside);
    await writeFile(path.join(outside, "f"), "OUTSIDE\n");
    await using agent = agentFor(
      {
        two: async (c) => {
          await mkdir(path.join(c, "d"));
          await writeFile(path.join(c, "d", "f"), "agent\n");
        },
        three: async (c) => rm(path.join(c, "d"), { recursive: true }),
      },
      cwd,
      dir,
    );
    const thread = agent.thread("t");
    await thread.run("one");
    const two = await thread.run("two");
    await thread.run("three");
    await symlink(outside, path.join(cwd, "d"));
    const rewound = await thread.rewind(two.runId);
    expect(await readFile(path.join(outside, "f"), "utf8")).toBe("OUTSIDE\n");
    expect((await lstat(path.join(cwd, "d"))).isSymbolicLink()).toBe(true);
    expect(rewound.kept).toEqual(["d/f"]);
    expect(rewound.restored).toEqual([]);
  });

  it("a folder the turn made in place of a file, where the person then added a file, is left with the person's file and kept", async () => {
    const { cwd, dir } = await workspace();
    await using agent = agentFor(
      {
        two: async (c) => {
          await rm(path.join(c, "notes"));
          await mkdir(path.join(c, "notes"));
          await writeFile(path.join(c, "notes", "x.md"), "agent\n");
        },
      },
      cwd,
      dir,
    );
    const thread = agent.thread("t");
    await thread.run("one");
    const two = await thread.run("two");
    await writeFile(path.join(cwd, "notes", "mine.md"), "PERSON\n");
    const rewound = await thread.rewind(two.runId);
    expect(await readFile(path.join(cwd, "notes", "mine.md"), "utf8")).toBe("PERSON\n");
    expect(existsSync(path.join(cwd, "notes", "x.md"))).toBe(false);
    expect(rewound.restored).toEqual(["notes/x.md"]);
    expect(rewound.kept).toEqual(["notes"]);
  });

  it("a folder the turn deleted, where the person then wrote a file of that name, leaves the person's file and keeps the path", async () => {
    const { cwd, dir } = await workspace();
    await mkdir(path.join(cwd, "d"));
    await writeFile(path.join(cwd, "d", "f"), "f\n");
    await using agent = agentFor({ two: async (c) => rm(path.join(c, "d"), { recursive: true }) }, cwd, dir);
    const thread = agent.thread("t");
    await thread.run("one");
    const two = await thread.run("two");
    await writeFile(path.join(cwd, "d"), "PERSON\n");
    const rewound = await thread.rewind(two.runId);
    expect(await readFile(path.join(cwd, "d"), "utf8")).toBe("PERSON\n");
    expect(rewound.kept).toEqual(["d/f"]);
    expect(rewound.restored).toEqual([]);
  });

  it("a file the person wrote between turns and a later undone turn edited goes back to the person's text, not away", async () => {
    const { cwd, dir } = await workspace();
    await using agent = agentFor(
      {
        two: async (c) => writeFile(path.join(c, "notes"), "agent two\n"),
        three: async (c) => writeFile(path.join(c, "between.md"), "PERSON\nagent line\n"),
      },
      cwd,
      dir,
    );
    const thread = agent.thread("t");
    await thread.run("one");
    const two = await thread.run("two");
    await writeFile(path.join(cwd, "between.md"), "PERSON\n");
    await thread.run("three");
    const rewound = await thread.rewind(two.runId);
    expect(await readFile(path.join(cwd, "between.md"), "utf8")).toBe("PERSON\n");
    expect(await readFile(path.join(cwd, "notes"), "utf8")).toBe("orig\n");
    expect(rewound.restored).toEqual(["between.md", "notes"]);
    expect(rewound.kept).toEqual([]);
  });

  it("a file ignored before the undone turn, which the turn un-ignored, stays after the rewind and is kept", async () => {
    const { cwd, dir } = await workspace();
    await writeFile(path.join(cwd, ".gitignore"), ".env\n");
    await writeFile(path.join(cwd, ".env"), "SECRET=person\n");
    await using agent = agentFor({ two: async (c) => writeFile(path.join(c, ".gitignore"), "# nothing\n") }, cwd, dir);
    const thread = agent.thread("t");
    await thread.run("one");
    const two = await thread.run("two");
    const rewound = await thread.rewind(two.runId);
    expect(await readFile(path.join(cwd, ".env"), "utf8")).toBe("SECRET=person\n");
    expect(await readFile(path.join(cwd, ".gitignore"), "utf8")).toBe(".env\n");
    expect(rewound.restored).toEqual([".gitignore"]);
    expect(rewound.kept).toEqual([".env"]);
  });

  it("git failing after the files and the record were put back is history_failed, which says both were already changed", async () => {
    const { cwd, dir } = await workspace();
    // A git that refuses to move refs once the marker exists (fault injection only).
    const marker = path.join(root, "refuse-update-ref");
    const git = path.join(root, "git-wrapper");
    await writeFile(
      git,
      `#!/bin/sh\nfor a in "$@"; do [ "$a" = update-ref ] && [ -e '${marker}' ] && { echo refused >&2; exit 1; }; done\nexec git "$@"\n`,
    );
    await chmod(git, 0o755);
    await using agent = new Agent(editingDriver({ two: async (c) => writeFile(path.join(c, "notes"), "agent\n") }), {
      threadStore: new MemoryThreadStore(),
      cwd,
      checkpointFiles: { dir, git },
    });
    const thread = agent.thread("t");
    await thread.run("one");
    const two = await thread.run("two");
    await writeFile(marker, "");
    const error = await thread.rewind(two.runId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileCheckpointError);
    expect((error as FileCheckpointError).reason).toBe("history_failed");
    expect((error as FileCheckpointError).message).toMatch(/files and the conversation's checkpoint were restored/);
    expect(await readFile(path.join(cwd, "notes"), "utf8")).toBe("orig\n");
    expect((await thread.checkpoint())?.checkpoint.data).toEqual({ turn: 1 });
  });
});
