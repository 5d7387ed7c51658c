import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { startOpenAIServer, type OpenAIServer } from "@adaptor/testkit";
import {
  ErrFeatureUnsupported,
  ErrInvalidOption,
  FeatureUnsupportedError,
  InvalidOptionError,
  findError,
  isError,
  type Agent,
} from "adaptor";
import { codexHost } from "./support.js";
import { closedAfterEach } from "../support/closed-after-each.js";

// thread.fork(key, { at }) on the real codex binary: over app-server the fork's first turn is
// codex's `thread/fork` through the chosen turn (`lastTurnId`), so the model sees the parent's
// turns through that one and none after it, on this host or on another one that shares the store;
// exec has no fork and refuses it before launch.

const open = closedAfterEach();

async function server(): Promise<OpenAIServer> {
  const s = await startOpenAIServer({ rules: [] });
  open.push(s);
  return s;
}

async function host(s: OpenAIServer, store: MemoryThreadStore, transport: "app-server" | "exec" = "app-server"): Promise<Agent> {
  return (await codexHost(s, store, (item) => open.push(item), transport)).agent;
}

/** The first run of a fork of `parent` at `at`: its rejection, and how many model requests it made. */
async function refusedFork(s: OpenAIServer, agent: Agent, at: number): Promise<{ error: unknown; requests: number }> {
  const before = s.requests.length;
  const error = await agent
    .thread("parent")
    .fork("child", { at })
    .run("never sent")
    .catch((e: unknown) => e);
  return { error, requests: s.requests.length - before };
}

/** The last model request, as JSON. */
function lastRequest(s: OpenAIServer): string {
  return JSON.stringify(s.requests.at(-1)!.body);
}

describe("thread.fork(key, { at }) on the real codex binary", { timeout: 180_000 }, () => {
  it("app-server: a fork at turn 2 of 3, run on another host, sends the model turns 1 and 2 only; the parent is unchanged and continues with all three", async () => {
    const s = await server();
    const store = new MemoryThreadStore();
    const a = await host(s, store);
    const b = await host(s, store);
    const parent = a.thread("parent");
    await parent.run("turn one [m-alpha]");
    await parent.run("turn two [m-beta]");
    await parent.run("turn three [m-gamma]");
    const before = await parent.checkpoint();

    const forked = await b.thread("parent").fork("child", { at: 2 }).run("fork turn [m-delta]");
    expect(forked.text).toMatch(/3 user message/);
    let seen = lastRequest(s);
    expect(seen).toContain("[m-delta]");
    expect(seen).toContain("[m-alpha]");
    expect(seen).toContain("[m-beta]");
    expect(seen).not.toContain("[m-gamma]");
    expect(forked.sessionId).not.toBe(before?.checkpoint.resumeId);

    // A fork of the fork at a turn it inherited, back on the first host.
    const grandchild = await a.thread("child").fork("grandchild", { at: 1 }).run("grandchild turn [m-epsilon]");
    expect(grandchild.text).toMatch(/2 user message/);
    seen = lastRequest(s);
    expect(seen).toContain("[m-alpha]");
    expect(seen).not.toContain("[m-beta]");
    expect(seen).not.toContain("[m-delta]");

    const after = await parent.checkpoint();
    expect({ id: after?.id, revision: after?.revision, checkpoint: after?.checkpoint }).toEqual({
      id: before?.id,
      revision: before?.revision,
      checkpoint: before?.checkpoint,
    });
    const next = await b.thread("parent").run("turn four [m-zeta]");
    expect(next.text).toMatch(/4 user message/);
    seen = lastRequest(s);
    expect(seen).toContain("[m-gamma]");
    expect(seen).not.toContain("[m-delta]");
  });

  it("app-server: a turn the parent does not have is InvalidOptionError (field at) before codex is asked anything", async () => {
    const s = await server();
    const a = await host(s, new MemoryThreadStore());
    await a.thread("parent").run("turn one [m-alpha]");
    const refused = await refusedFork(s, a, 2);
    expect(isError(refused.error, ErrInvalidOption)).toBe(true);
    expect(findError(refused.error, InvalidOptionError)).toMatchObject({ subject: "thread.fork()", field: "at" });
    expect(refused.requests).toBe(0);
  });

  it("exec: FeatureUnsupportedError (feature fork) before launch", async () => {
    const s = await server();
    const a = await host(s, new MemoryThreadStore(), "exec");
    await a.thread("parent").run("turn one [m-alpha]");
    await a.thread("parent").run("turn two [m-beta]");
    const refused = await refusedFork(s, a, 1);
    expect(isError(refused.error, ErrFeatureUnsupported)).toBe(true);
    expect(findError(refused.error, FeatureUnsupportedError)).toMatchObject({ feature: "fork" });
    expect(refused.requests).toBe(0);
  });
});
