import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SessionFile, SessionLocation, SessionTransfer } from "@adaptor/driver";
import { MemoryThreadStore, type ThreadStore } from "@adaptor/threadstore";
import {
  Agent,
  ErrInvalidOption,
  ErrThreadSessionCorrupt,
  type AgentOptions,
  FeatureUnsupportedError,
  InvalidOptionError,
  ThreadSessionError,
  findError,
  isError,
} from "../src/index.js";
import { turnsThrough } from "../src/thread/turn-log.js";
import { scriptedDriver } from "./scripted-driver.js";
import { baseOnly } from "./support/base-store.js";
import { keepingOldState } from "./support/stale-state-store.js";

// thread.fork(key, { at }) at the SDK level: a scripted "CLI" keeps each session as lines in its
// home and, like claude and codex, resumes or forks a session exactly at the checkpoint it is given
// (its last line), dropping what follows. Which checkpoint a fork gets, which turns a fork point
// can name after a replaced conversation, a turn committed without its session files, an adoption
// and a rewind, and the refusals before anything runs.

let root = "";
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = "";
});

/**
 * One host's CLI home. A session file is append-only, as the CLIs' are: each line is a message
 * `<id>|<parent id>|<prompt>`, and a conversation is the chain from its checkpoint's message (the
 * checkpoint data's `last`) back to the first. A resume appends after the checkpoint's message
 * (later lines stay in the file but leave the conversation); a fork copies the chain into a new
 * session, keeping the ids.
 */
class Home implements SessionTransfer {
  readonly format = "lines/v1";
  readonly files = new Map<string, string[]>();
  async exportSession(location: SessionLocation): Promise<readonly SessionFile[] | undefined> {
    const lines = this.files.get(location.resumeId);
    return lines ? [{ name: "session.log", content: Buffer.from(lines.join("")) }] : undefined;
  }
  async importSession(location: SessionLocation, files: readonly SessionFile[]): Promise<void> {
    this.files.set(
      location.resumeId,
      Buffer.from(files[0]!.content)
        .toString()
        .split(/(?<=\n)/),
    );
  }
}

/** The chain of messages through `last` in `lines`, oldest first. */
function chain(lines: readonly string[], last: string | undefined): string[] {
  const byId = new Map(lines.map((line) => line.trimEnd().split("|") as [string, string, string]).map((m) => [m[0], m]));
  const out: string[][] = [];
  for (let at = last; at; at = byId.get(at)?.[1]) if (byId.has(at)) out.unshift(byId.get(at)!);
  return out.map((m) => m.join("|") + "\n");
}

let messages = 0;
let sessions = 0;
function hostDriver(home: Home, sessionCaps: { fromCheckpoint?: boolean } = { fromCheckpoint: true }, transfer = true) {
  const driver = scriptedDriver(
    async (request) => {
      const session = request.session;
      let last = (session?.data as { last?: string } | undefined)?.last;
      let lines: string[] = [];
      if (session) {
        const held = home.files.get(session.resumeId);
        if (!held) return { failure: { reason: "resume_rejected", message: `no session ${session.resumeId}` } };
        // Without a checkpoint message (an adoption), the session goes on from its last line.
        last ??= held.at(-1)?.split("|")[0];
        lines = session.fork ? chain(held, last) : held;
      }
      const id = session && !session.fork ? session.resumeId : `session-${++sessions}`;
      const message = `m${++messages}`;
      const next = [...lines, `${message}|${last ?? ""}|${request.prompt}\n`];
      home.files.set(id, next);
      const seen = chain(next, message).map((line) => line.trimEnd().split("|")[2]);
      return { text: `saw ${seen.join(",")}`, checkpoint: { resumeId: id, data: { last: message } } };
    },
    transfer ? { sessions: home } : {},
  );
  const { descriptor } = driver;
  return Object.assign(driver, {
    descriptor: {
      ...descriptor,
      capabilities: { ...descriptor.capabilities, sessions: { resume: true, fork: true, ...sessionCaps } },
    },
  });
}

function host(store: ThreadStore, home = new Home(), options: AgentOptions = {}) {
  const driver = hostDriver(home);
  return { home, driver, agent: new Agent(driver, { threadStore: store, ...options }) };
}

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

function expectBadAt(error: unknown, reason: RegExp): void {
  expect(isError(error, ErrInvalidOption)).toBe(true);
  const typed = findError(error, InvalidOptionError);
  expect(typed).toMatchObject({ subject: "thread.fork()", field: "at" });
  expect(typed?.reason).toMatch(reason);
}

describe("thread.fork(key, { at }) (SDK)", () => {
  it("the fork's first request resumes the chosen turn's checkpoint with fork; the parent's record and session stay as they were", async () => {
    const store = new MemoryThreadStore();
    const { agent, driver, home } = host(store);
    const parent = agent.thread("p");
    const runs = [];
    const checkpoints = [];
    for (const prompt of ["one", "two", "three"]) {
      runs.push(await parent.run(prompt));
      checkpoints.push((await parent.checkpoint())!.checkpoint);
    }
    const before = await parent.checkpoint();
    const parentLines = [...home.files.get(before!.checkpoint.resumeId)!];

    expect((await parent.fork("by-number", { at: 2 }).run("four")).text).toBe("saw one,two,four");
    expect(driver.requests.at(-1)?.session).toEqual({ resumeId: before!.checkpoint.resumeId, fork: true, data: checkpoints[1]!.data });
    expect((await parent.fork("by-run", { at: runs[0]!.runId }).run("five")).text).toBe("saw one,five");
    expect((await parent.fork("latest").run("six")).text).toBe("saw one,two,three,six");

    const after = await parent.checkpoint();
    expect([after?.id, after?.revision]).toEqual([before?.id, before?.revision]);
    expect(home.files.get(before!.checkpoint.resumeId)).toEqual(parentLines);
    expect((await parent.run("seven")).text).toBe("saw one,two,three,seven");
    // A fork counts the turns it inherited: its turn 3 is its own first one.
    expect((await agent.thread("by-number").fork("deeper", { at: 3 }).run("eight")).text).toBe("saw one,two,four,eight");
  });

  it("fork points name turns of the current conversation only: a replaced conversation's runs are unknown and positions start again", async () => {
    const store = new MemoryThreadStore();
    const { agent } = host(store);
    const old = await agent.thread("p").run("old one");
    await agent.newThread("p").run("new one");
    await agent.thread("p").run("new two");
    expectBadAt(
      await refusal(agent.thread("p").fork("c", { at: old.runId }).run("x")),
      /committed no turn of thread p's current conversation/,
    );
    expectBadAt(await refusal(agent.thread("p").fork("c", { at: 3 }).run("x")), /names turn 3, but thread p has 2 committed turns/);
    expect((await agent.thread("p").fork("c", { at: 1 }).run("x")).text).toBe("saw new one,x");
    // Refused on another host before anything is written to its CLI home.
    const other = host(store);
    expectBadAt(await refusal(other.agent.thread("p").fork("d", { at: 9 }).run("x")), /names turn 9/);
    expect(other.home.files.size).toBe(0);
    expect(other.driver.requests).toHaveLength(0);
  });

  it("a turn committed without its session files: no fork point until a stored turn; then its turns are named by run id only", async () => {
    const store = new MemoryThreadStore();
    // Compressed, turn one fits; the long random prompt of turn two does not.
    const small = host(store, new Home(), { sessionStateLimitBytes: 1500 });
    await small.agent.thread("p").run("one");
    await small.agent.thread("p").run(`two ${randomBytes(2000).toString("hex")}`);
    expect((await store.resolve({ key: "p" }))?.codec).toBe("json/v1;session=local");
    expectBadAt(await refusal(small.agent.thread("p").fork("c", { at: 1 }).run("x")), /has no stored turns to fork at/);
    // The same CLI home, which holds the local checkpoint, with room for the session: stored again.
    const { agent } = host(store, small.home);
    const three = await agent.thread("p").run("three");
    expectBadAt(await refusal(agent.thread("p").fork("c", { at: 1 }).run("x")), /do not start at its first turn/);
    expect((await agent.thread("p").fork("c", { at: three.runId }).run("x")).text).toMatch(/^saw one,two [0-9a-f]+,three,x$/);
  });

  it("an adopted session: its turns before the adoption are not numbered, so positions are refused and run ids work", async () => {
    const store = new MemoryThreadStore();
    const home = new Home();
    home.files.set("cli-own", ["m0||made outside\n"]);
    const { agent } = host(store, home);
    const first = await agent.thread("p", { adoptSession: "cli-own" }).run("adopted one");
    await agent.thread("p").run("adopted two");
    expectBadAt(await refusal(agent.thread("p").fork("c", { at: 1 }).run("x")), /do not start at its first turn/);
    expect((await agent.thread("p").fork("c", { at: first.runId }).run("x")).text).toBe("saw made outside,adopted one,x");
  });

  it("a rewind: the undone turns are no fork points, and the turns after it are numbered from the checkpoint it went back to", async () => {
    root = await mkdtemp(path.join(tmpdir(), "adaptor-forkat-"));
    const store = new MemoryThreadStore();
    const home = new Home();
    const agent = new Agent(hostDriver(home), {
      threadStore: store,
      cwd: root,
      checkpointFiles: { dir: path.join(root, "..", `${path.basename(root)}-cp`) },
    });
    try {
      const thread = agent.thread("p");
      await thread.run("one");
      const undone = await thread.run("two");
      await thread.run("three");
      await thread.rewind(undone.runId);
      expectBadAt(await refusal(thread.fork("c", { at: 2 }).run("x")), /has 1 committed turn$/);
      expectBadAt(await refusal(thread.fork("c", { at: undone.runId }).run("x")), /committed no turn/);
      await thread.run("four");
      expect((await thread.fork("c", { at: 2 }).run("x")).text).toBe("saw one,four,x");
    } finally {
      await agent.close();
      await rm(path.join(root, "..", `${path.basename(root)}-cp`), { recursive: true, force: true });
    }
  });

  it("refused before anything runs: a driver that cannot resume at an earlier checkpoint, one without session transfer, a store without session state", async () => {
    const cases: { driver: ReturnType<typeof hostDriver>; store: ThreadStore; why: RegExp }[] = [
      { driver: hostDriver(new Home(), { fromCheckpoint: false }), store: new MemoryThreadStore(), why: /at an earlier turn/ },
      {
        driver: hostDriver(new Home(), { fromCheckpoint: true }, false),
        store: new MemoryThreadStore(),
        why: /moves its CLI's session files/,
      },
      { driver: hostDriver(new Home()), store: baseOnly(new MemoryThreadStore()), why: /thread store with session state/ },
    ];
    for (const { driver, store, why } of cases) {
      await using agent = new Agent(driver, { threadStore: store });
      await agent.thread("p").run("one");
      const calls = driver.requests.length;
      const resolve = vi.spyOn(store, "resolve");
      const acquire = vi.spyOn(store, "acquireLease");
      const refused = await refusal(agent.thread("p").fork("c", { at: 1 }).run("x"));
      expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "scripted", feature: "fork" });
      expect(findError(refused, FeatureUnsupportedError)?.message).toMatch(why);
      expect(driver.requests.length).toBe(calls);
      expect(resolve).not.toHaveBeenCalled();
      expect(acquire).not.toHaveBeenCalled();
    }
  });

  it("a parent whose stored session state is an older write's than its record: a fork (latest or at a turn) is ThreadSessionError stale, not a missing fork point, before the CLI starts", async () => {
    const store = keepingOldState(new MemoryThreadStore());
    const parent = host(store);
    await parent.agent.thread("p").run("one");
    await parent.agent.thread("p").run("two");
    for (const options of [{}, { at: 1 }, { at: 2 }]) {
      const other = host(store);
      const refused = await refusal(other.agent.thread("p").fork("c", options).run("x"));
      expect(isError(refused, ErrThreadSessionCorrupt)).toBe(true);
      expect(findError(refused, ThreadSessionError)?.reason).toBe("stale");
      expect(other.driver.requests).toHaveLength(0);
      expect(other.home.files.size).toBe(0);
    }
  });

  it("an at that is not a turn number or a run id: InvalidOptionError from fork() itself", () => {
    const agent = new Agent(hostDriver(new Home()), { threadStore: new MemoryThreadStore() });
    for (const at of [0, -1, 1.5, Number.NaN, ""]) {
      let thrown: unknown;
      try {
        agent.thread("p").fork("c", { at });
      } catch (error) {
        thrown = error;
      }
      expectBadAt(thrown, /must be a turn number/);
    }
  });

  it("a stored turn is found whatever order the store gives the checkpoint data's keys in (a store may give them back in another order)", () => {
    const log = {
      complete: true,
      turns: [
        { runId: "r1", resumeId: "s", data: { a: 1, b: { c: 2, d: 3 } } },
        { runId: "r2", resumeId: "s", data: { a: 2 } },
      ],
    };
    expect(turnsThrough(log, { resumeId: "s", data: { b: { d: 3, c: 2 }, a: 1 } })?.turns.map((t) => t.runId)).toEqual(["r1"]);
    expect(turnsThrough(log, { resumeId: "other", data: { a: 1, b: { c: 2, d: 3 } } })).toBeUndefined();
  });
});
