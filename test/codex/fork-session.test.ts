import { randomUUID } from "node:crypto";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { startOpenAIServer, type OpenAIServer } from "@adaptor/testkit";
import { ErrResumeRejected, InvalidOptionError, findError, isError } from "adaptor";
import { codexHost } from "./support.js";
import { closedAfterEach } from "../support/closed-after-each.js";

// agent.forkSession() on the real codex binary: codex's `thread/fork` (through the turn that ends
// with the message given) on a short-lived app-server, named with `thread/name/set`; the fork is a
// thread of codex's own, which a thread of this Agent adopts and continues with that history only.

const open = closedAfterEach();
const track = (item: { close(): Promise<void> }): void => void open.push(item);

async function server(): Promise<OpenAIServer> {
  const s = await startOpenAIServer({ rules: [] });
  open.push(s);
  return s;
}

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("codex: forkSession (real binary)", { timeout: 240_000 }, () => {
  it("a fork at the first turn's reply holds that turn; resumed, the model sees it and not the second; the title is the original's and (fork)", async () => {
    const s = await server();
    const a = await codexHost(s, new MemoryThreadStore(), track);
    const thread = a.agent.thread("original");
    const id = (await thread.run("first turn [m-alpha]")).sessionId!;
    await thread.run("second turn [m-beta]");
    const original = (await a.agent.getSessionMessages(id)).messages;
    expect(original.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);

    const fork = await a.agent.forkSession(id, { upToMessageId: original[1]!.id! });
    expect(fork.sessionId).not.toBe(id);
    expect((await a.agent.getSessionMessages(fork.sessionId)).messages.map((m) => [m.role, m.text])).toEqual(
      original.slice(0, 2).map((m) => [m.role, m.text]),
    );
    expect(await a.agent.getSessionInfo(fork.sessionId)).toMatchObject({
      sessionId: fork.sessionId,
      title: "first turn [m-alpha] (fork)",
      forkedFrom: id,
    });

    const resumed = await a.agent.thread("forked", { adoptSession: fork.sessionId }).run("third turn [m-gamma]");
    expect(resumed.sessionId).toBe(fork.sessionId);
    const seen = JSON.stringify(s.requests.at(-1)!.body);
    expect(seen).toContain("[m-alpha]");
    expect(seen).toContain("[m-gamma]");
    expect(seen).not.toContain("[m-beta]");
    // The original keeps its turns.
    expect((await a.agent.getSessionMessages(id)).messages.map((m) => m.text)).toEqual(original.map((m) => m.text));
  });

  it("a fork without upToMessageId copies every turn under the title given; a message not ending its turn, an unknown message or thread is refused and nothing is forked", async () => {
    const s = await server();
    const a = await codexHost(s, new MemoryThreadStore(), track);
    const id = (await a.agent.thread("original").run("only turn [m-one]")).sessionId!;
    const messages = (await a.agent.getSessionMessages(id)).messages;
    const whole = await a.agent.forkSession(id, { title: " Branch B " });
    expect((await a.agent.getSessionMessages(whole.sessionId)).messages.map((m) => m.text)).toEqual(messages.map((m) => m.text));
    expect(await a.agent.getSessionInfo(whole.sessionId)).toMatchObject({ title: "Branch B" });

    const threads = (await a.agent.listSessions()).sessions.length;
    for (const upToMessageId of [messages[0]!.id!, randomUUID()])
      expect(findError(await failure(a.agent.forkSession(id, { upToMessageId })), InvalidOptionError)).toMatchObject({
        subject: "forkSession arguments",
        field: "upToMessageId",
      });
    expect(isError(await failure(a.agent.forkSession(randomUUID())), ErrResumeRejected)).toBe(true);
    expect((await a.agent.listSessions()).sessions.length).toBe(threads);
  });

  it("a signal aborted once codex wrote the fork does not hide it: the call answers the fork's id, titled, and no other fork is made", async () => {
    const s = await server();
    const a = await codexHost(s, new MemoryThreadStore(), track);
    const id = (await a.agent.thread("original").run("first turn [m-alpha]")).sessionId!;
    const sessions = join(a.env.env.CODEX_HOME!, "sessions");
    const rollouts = async (): Promise<string[]> =>
      (await readdir(sessions, { recursive: true })).filter((name) => name.endsWith(".jsonl")).map(String);
    const before = new Set(await rollouts());
    const controller = new AbortController();
    // Aborted as soon as the fork's rollout file is there (codex writes it at thread/fork).
    let watching = true;
    const watch = (async () => {
      while (watching && !controller.signal.aborted) {
        if ((await rollouts()).some((name) => !before.has(name))) controller.abort(new Error("stopped after the fork"));
        else await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const result = await a.agent.forkSession(id, { signal: controller.signal }).then(
      (fork) => fork,
      (e: unknown) => e,
    );
    watching = false;
    await watch;
    expect(result).toMatchObject({ sessionId: expect.any(String) });
    const forked = (result as { sessionId: string }).sessionId;
    expect(await a.agent.getSessionInfo(forked)).toMatchObject({ title: "first turn [m-alpha] (fork)", forkedFrom: id });
    expect((await a.agent.listSessions()).sessions.map((session) => session.sessionId).sort()).toEqual([id, forked].sort());
  });
});
