import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { Agent, FeatureUnsupportedError, InvalidOptionError, findError, type AgentEvent, type Result, type Stream } from "adaptor";
import { codexHarness, type CodexHarness } from "./support.js";

// `additionalDirectories` on the real codex 0.171.0 binary, both transports: under sandbox
// workspace_write they are codex's writable roots besides the working directory (a command's write
// there lands, a write anywhere else outside the working directory is still refused by codex's
// sandbox); under read_only they are readable and stay unwritable; a thread turn never keeps the
// roots of an earlier turn. The temp root is outside /tmp, which workspace-write leaves writable.

let h: CodexHarness | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await h?.close();
  h = agent = undefined;
});

/** A harness with two directories beside the working directory (`<root>/added-a`, `<root>/added-b`). */
async function setUp(transport: "app-server" | "exec"): Promise<{ a: string; b: string; outside: string }> {
  h = await codexHarness({ config: { transport }, outsideTmp: true });
  agent = new Agent(h.driver, { threadStore: new MemoryThreadStore() });
  const a = join(h.env.root, "added-a");
  const b = join(h.env.root, "added-b");
  await mkdir(a);
  await mkdir(b);
  return { a, b, outside: join(h.env.root, "outside.txt") };
}

/** The sandbox entry's detail of a run's enforcement report. */
const sandboxDetail = (result: Result): string | undefined => result.enforcement.find((entry) => entry.field === "sandbox")?.detail;

/** Drains a thread turn: its result, and whether it ran on a parked process. */
async function turn(stream: Stream): Promise<{ result?: Result; reused: boolean; spawned: boolean; error?: unknown }> {
  let reused = false;
  let spawned = false;
  for await (const event of stream as AsyncIterable<AgentEvent>) {
    if (event.type === "notice" && event.message === "process reused") reused = true;
    if (event.type === "process" && event.kind === "spawn") spawned = true;
  }
  try {
    return { result: await stream.result(), reused, spawned };
  } catch (error) {
    return { reused, spawned, error };
  }
}

describe.each(["app-server", "exec"] as const)("additionalDirectories on codex (%s transport)", (transport) => {
  it("workspace_write: a write in an added directory lands, one elsewhere outside the working directory is refused; the report lists the roots", async () => {
    const { a, outside } = await setUp(transport);
    const prompt = `SHELL_CMD echo in > ${a}/in.txt; echo out > ${outside}`;
    const without = await agent!.run(prompt, { policy: { sandbox: "workspace_write" } });
    expect(without.text).toContain("Process exited with code 1");
    expect(existsSync(join(a, "in.txt"))).toBe(false);

    const added = await agent!.run(prompt, { policy: { sandbox: "workspace_write" }, additionalDirectories: [a] });
    expect(await readFile(join(a, "in.txt"), "utf8")).toBe("in\n");
    expect(existsSync(outside)).toBe(false);
    expect(added.text).toContain("Process exited with code 1");
    expect(sandboxDetail(added)).toContain(`(additionalDirectories, sandbox_workspace_write.writable_roots): ${JSON.stringify([a])}`);
  });

  it("a directory named with a trailing slash, `..` or through a symbolic link is its real path: the write lands, the report names both", async () => {
    const { a } = await setUp(transport);
    const link = join(h!.env.root, "link-to-a");
    await symlink(a, link);
    for (const [index, named] of [`${a}/`, `${a}/../added-a`, link].entries()) {
      const result = await agent!.run(`SHELL_CMD echo x > ${a}/n${index}.txt`, {
        policy: { sandbox: "workspace_write" },
        additionalDirectories: [named],
      });
      expect(existsSync(join(a, `n${index}.txt`))).toBe(true);
      expect(sandboxDetail(result)).toContain(JSON.stringify([`${named} -> ${a}`]));
    }
  });

  it("workspace_write: the filesystem root, or a directory holding the run's CODEX_HOME (its config.toml sets the sandbox), is refused before launch", async () => {
    await setUp(transport);
    for (const named of ["/", "//tmp/../", h!.env.codexHome, dirname(h!.env.codexHome)]) {
      const refused = await agent!.run("SHELL_CMD echo x", { policy: { sandbox: "workspace_write" }, additionalDirectories: [named] }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(findError(refused, InvalidOptionError), named).toMatchObject({ field: "additionalDirectories[0]" });
    }
  });

  it("a thread adopted from a codex thread that had other roots: refused once it is open, before its turn; nothing written", async () => {
    const { a, b } = await setUp(transport);
    const first = await agent!.run(`SHELL_CMD echo x > ${a}/one.txt`, {
      policy: { sandbox: "workspace_write" },
      additionalDirectories: [a],
    });
    expect(existsSync(join(a, "one.txt"))).toBe(true);
    const adopted = agent!.thread("adopted", { adoptSession: first.sessionId! });
    const refused = await turn(
      adopted.stream(`SHELL_CMD echo x > ${a}/two.txt; echo x > ${b}/two.txt`, {
        policy: { sandbox: "workspace_write" },
        additionalDirectories: [b],
      }),
    );
    if (transport === "exec") {
      expect(refused.error).toBeUndefined();
      expect([existsSync(join(a, "two.txt")), existsSync(join(b, "two.txt"))]).toEqual([false, true]);
      return;
    }
    expect(findError(refused.error, FeatureUnsupportedError)).toMatchObject({ feature: "additionalDirectories" });
    expect(String(refused.error)).toContain(JSON.stringify([a]));
    expect(refused.spawned).toBe(true);
    expect([existsSync(join(a, "two.txt")), existsSync(join(b, "two.txt"))]).toEqual([false, false]);
  });

  it("read_only: accepted without widening writes; a file in the added directory is read, a write there is refused", async () => {
    const { a } = await setUp(transport);
    await writeFile(join(a, "note.txt"), "note-in-added-dir\n");
    const result = await agent!.run(`SHELL_CMD cat ${a}/note.txt; echo w > ${a}/w.txt`, {
      policy: { sandbox: "read_only" },
      additionalDirectories: [a],
    });
    expect(result.text).toContain("Output: note-in-added-dir");
    expect(existsSync(join(a, "w.txt"))).toBe(false);
    expect(sandboxDetail(result)).toContain(
      `additionalDirectories readable (the read-only sandbox lets commands read every path), not writable`,
    );
  });

  it("thread turns: a turn never writes in a directory only an earlier turn of the thread was given; the same roots reuse the parked process", async () => {
    const { a, b } = await setUp(transport);
    const thread = agent!.thread("dirs");
    const policy = { sandbox: "workspace_write" } as const;
    const write = (name: string): string => `SHELL_CMD echo x > ${a}/${name}; echo x > ${b}/${name}`;
    const written = (name: string): boolean[] => [existsSync(join(a, name)), existsSync(join(b, name))];

    await turn(thread.stream(write("one.txt"), { policy, additionalDirectories: [a] }));
    expect(written("one.txt")).toEqual([true, false]);

    // Other roots, or none: exec replaces them; codex app-server would keep the earlier turn's, so
    // the turn is refused before launch (the thread's checkpoint records the roots).
    const other = await turn(thread.stream(write("two.txt"), { policy, additionalDirectories: [b] }));
    const none = await turn(thread.stream(write("three.txt"), { policy }));
    if (transport === "exec") {
      expect([other.error, none.error]).toEqual([undefined, undefined]);
      expect([...written("two.txt"), ...written("three.txt")]).toEqual([false, true, false, false]);
      return;
    }
    for (const refused of [other, none]) {
      expect(findError(refused.error, FeatureUnsupportedError)).toMatchObject({ driver: "codex", feature: "additionalDirectories" });
      expect(String(refused.error)).toContain(JSON.stringify([a]));
      expect(refused.spawned).toBe(false);
    }
    expect([...written("two.txt"), ...written("three.txt")]).toEqual([false, false, false, false]);

    // The thread goes on with its roots, and with more; a parked process serves the same roots again.
    const same = await turn(thread.stream(write("four.txt"), { policy, additionalDirectories: [a] }));
    expect(written("four.txt")).toEqual([true, false]);
    const more = await turn(thread.stream(write("five.txt"), { policy, additionalDirectories: [a, b] }));
    expect(more.reused).toBe(false);
    expect(written("five.txt")).toEqual([true, true]);
    const again = await turn(thread.stream(write("six.txt"), { policy, additionalDirectories: [a, b] }));
    expect(again.reused).toBe(true);
    expect(written("six.txt")).toEqual([true, true]);
    expect(same.error).toBeUndefined();
  });
});
