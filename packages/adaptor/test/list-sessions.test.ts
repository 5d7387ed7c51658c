import { describe, expect, it } from "vitest";
import type { DriverListSessionsQuery, SessionPage } from "@adaptor/driver";
import {
  Agent,
  ErrAgentClosed,
  ErrFeatureUnsupported,
  FeatureUnsupportedError,
  InvalidOptionError,
  findError,
  isError,
} from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

// agent.listSessions(): the query checked and defaulted, the driver's capability required, the
// Agent's env passed on (it names the CLI home), and a listing in flight ended by its signal or close().

const PAGE: SessionPage = { sessions: [{ sessionId: "s-1", cwd: "/work/app", updatedAt: new Date(0) }], skipped: [], nextCursor: "next" };

function listing(list: (query: DriverListSessionsQuery, signal?: AbortSignal) => Promise<SessionPage>) {
  const driver = scriptedDriver(async () => ({}), { listSessions: list });
  return {
    ...driver,
    descriptor: {
      ...driver.descriptor,
      capabilities: { ...driver.descriptor.capabilities, sessions: { resume: true, fork: false, list: true } },
    },
  };
}

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("agent.listSessions()", () => {
  it("a driver without the sessions.list capability refuses with FeatureUnsupportedError, its listSessions never called", async () => {
    let called = false;
    const driver = scriptedDriver(async () => ({}), { listSessions: async () => ((called = true), PAGE) });
    await using agent = new Agent(driver);
    const err = await failure(agent.listSessions());
    expect(isError(err, ErrFeatureUnsupported)).toBe(true);
    expect(findError(err, FeatureUnsupportedError)).toMatchObject({ driver: "scripted", feature: "listSessions" });
    expect(called).toBe(false);
    // Nor does a driver that declares it without the method.
    const declared = listing(async () => PAGE);
    await using without = new Agent({ ...declared, listSessions: undefined });
    expect(findError(await failure(without.listSessions()), FeatureUnsupportedError)).toMatchObject({ feature: "listSessions" });
  });

  it("the driver gets the query with limit 100 by default and the Agent's env; its page is the answer", async () => {
    const seen: DriverListSessionsQuery[] = [];
    await using agent = new Agent(
      listing(async (query) => (seen.push(query), PAGE)),
      { env: { CLAUDE_CONFIG_DIR: "/homes/a/.claude" } },
    );
    expect(await agent.listSessions()).toBe(PAGE);
    expect(await agent.listSessions({ cwd: "/work/app", limit: 5, cursor: "next" })).toBe(PAGE);
    expect(seen).toEqual([
      { limit: 100, env: { CLAUDE_CONFIG_DIR: "/homes/a/.claude" } },
      { limit: 5, cwd: "/work/app", cursor: "next", env: { CLAUDE_CONFIG_DIR: "/homes/a/.claude" } },
    ]);
  });

  it("a bad query is refused before the driver is asked, naming the field", async () => {
    let called = 0;
    await using agent = new Agent(listing(async () => (called++, PAGE)));
    for (const [query, field] of [
      [{ cwd: "relative" }, "cwd"],
      [{ cwd: "" }, "cwd"],
      [{ cwd: "/a\u0000b" }, "cwd"],
      [{ limit: 0 }, "limit"],
      [{ limit: 1.5 }, "limit"],
      [{ limit: 1001 }, "limit"],
      [{ cursor: "" }, "cursor"],
      [{ dir: "/work" }, "dir"],
    ] as const) {
      expect(findError(await failure(agent.listSessions(query as never)), InvalidOptionError)).toMatchObject({
        subject: "listSessions query",
        field,
      });
    }
    expect(called).toBe(0);
  });

  it("a signal that is not an AbortSignal is refused as inspect() refuses it, before the driver is asked", async () => {
    let called = 0;
    await using agent = new Agent(listing(async () => (called++, PAGE)));
    for (const signal of ["stop", {}, { aborted: false }, null]) {
      const refused = findError(await failure(agent.listSessions({}, signal as never)), InvalidOptionError);
      const inspected = findError(await failure(agent.inspect({ signal: signal as never })), InvalidOptionError);
      expect(refused).toMatchObject({ subject: "listSessions arguments", field: "signal", reason: inspected?.reason });
      expect(refused?.reason).toMatch(/^must be an AbortSignal, got /);
    }
    expect(called).toBe(0);
  });

  it("the caller's signal and close() end a listing in flight; after close() a listing is refused", async () => {
    const started: AbortSignal[] = [];
    const waits = (_query: DriverListSessionsQuery, signal?: AbortSignal): Promise<SessionPage> =>
      new Promise((_, reject) => {
        started.push(signal!);
        signal!.addEventListener("abort", () => reject(signal!.reason as Error), { once: true });
      });
    const agent = new Agent(listing(waits));
    const controller = new AbortController();
    const stopped = failure(agent.listSessions({}, controller.signal));
    await expect.poll(() => started.length).toBe(1);
    const reason = new Error("the user went away");
    controller.abort(reason);
    expect(await stopped).toBe(reason);

    const closing = failure(agent.listSessions());
    await expect.poll(() => started.length).toBe(2);
    await agent.close();
    expect(isError(await closing, ErrAgentClosed)).toBe(true);
    expect(isError(await failure(agent.listSessions()), ErrAgentClosed)).toBe(true);
  });
});
