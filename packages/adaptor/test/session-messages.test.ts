import { describe, expect, it } from "vitest";
import type { DriverSessionMessagesQuery, SessionMessagePage } from "@adaptor/driver";
import {
  Agent,
  ErrAgentClosed,
  ErrFeatureUnsupported,
  ErrResumeRejected,
  FeatureUnsupportedError,
  InvalidOptionError,
  findError,
  isError,
} from "../src/index.js";
import { scriptedDriver } from "./scripted-driver.js";

// agent.getSessionMessages(): the arguments checked and defaulted, the driver's capability
// required, the Agent's env passed on (it names the CLI home), a session the home does not hold
// refused as its adoption is, and a read in flight ended by its signal or close().

const PAGE: SessionMessagePage = { messages: [{ role: "user", text: "hello", at: new Date(0), id: "m-1" }], nextCursor: "next" };

type Read = (query: DriverSessionMessagesQuery, signal?: AbortSignal) => Promise<SessionMessagePage | undefined>;

function reading(read: Read) {
  const driver = scriptedDriver(async () => ({}), { getSessionMessages: read });
  return {
    ...driver,
    descriptor: {
      ...driver.descriptor,
      capabilities: { ...driver.descriptor.capabilities, sessions: { resume: true, fork: false, messages: true } },
    },
  };
}

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("agent.getSessionMessages()", () => {
  it("a driver without the sessions.messages capability refuses with FeatureUnsupportedError, its getSessionMessages never called", async () => {
    let called = false;
    const driver = scriptedDriver(async () => ({}), { getSessionMessages: async () => ((called = true), PAGE) });
    await using agent = new Agent(driver);
    const err = await failure(agent.getSessionMessages("s-1"));
    expect(isError(err, ErrFeatureUnsupported)).toBe(true);
    expect(findError(err, FeatureUnsupportedError)).toMatchObject({ driver: "scripted", feature: "getSessionMessages" });
    expect(called).toBe(false);
    const declared = reading(async () => PAGE);
    await using without = new Agent({ ...declared, getSessionMessages: undefined });
    expect(findError(await failure(without.getSessionMessages("s-1")), FeatureUnsupportedError)).toMatchObject({
      feature: "getSessionMessages",
    });
  });

  it("the driver gets the session id, limit 100 by default and the Agent's env; its page is the answer", async () => {
    const seen: DriverSessionMessagesQuery[] = [];
    await using agent = new Agent(
      reading(async (query) => (seen.push(query), PAGE)),
      { env: { CODEX_HOME: "/homes/a/.codex" } },
    );
    expect(await agent.getSessionMessages("s-1")).toBe(PAGE);
    expect(await agent.getSessionMessages("s-1", { limit: 5, cursor: "next" })).toBe(PAGE);
    expect(seen).toEqual([
      { sessionId: "s-1", limit: 100, env: { CODEX_HOME: "/homes/a/.codex" } },
      { sessionId: "s-1", limit: 5, cursor: "next", env: { CODEX_HOME: "/homes/a/.codex" } },
    ]);
  });

  it("a session the driver does not find is ErrResumeRejected naming the id", async () => {
    await using agent = new Agent(reading(async () => undefined));
    const err = await failure(agent.getSessionMessages("gone-session"));
    expect(isError(err, ErrResumeRejected)).toBe(true);
    expect((err as Error).message).toContain("gone-session");
  });

  it("bad arguments are refused before the driver is asked, naming the field", async () => {
    let called = 0;
    await using agent = new Agent(reading(async () => (called++, PAGE)));
    for (const [sessionId, query, subject, field] of [
      ["", {}, "getSessionMessages arguments", "sessionId"],
      [42, {}, "getSessionMessages arguments", "sessionId"],
      ["a\u0000b", {}, "getSessionMessages arguments", "sessionId"],
      ["s-1", { limit: 0 }, "getSessionMessages query", "limit"],
      ["s-1", { limit: 1.5 }, "getSessionMessages query", "limit"],
      ["s-1", { limit: 1001 }, "getSessionMessages query", "limit"],
      ["s-1", { cursor: "" }, "getSessionMessages query", "cursor"],
      ["s-1", { cwd: "/work" }, "getSessionMessages query", "cwd"],
      ["s-1", "limit", "getSessionMessages query", undefined],
    ] as const) {
      const refused = findError(await failure(agent.getSessionMessages(sessionId as never, query as never)), InvalidOptionError);
      expect(refused).toMatchObject({ subject, ...(field ? { field } : {}) });
    }
    for (const signal of ["stop", {}, null]) {
      expect(findError(await failure(agent.getSessionMessages("s-1", {}, signal as never)), InvalidOptionError)).toMatchObject({
        subject: "getSessionMessages arguments",
        field: "signal",
      });
    }
    expect(called).toBe(0);
  });

  it("the caller's signal and close() end a read in flight; after close() a read is refused", async () => {
    const started: AbortSignal[] = [];
    const waits: Read = (_query, signal) =>
      new Promise((_, reject) => {
        started.push(signal!);
        signal!.addEventListener("abort", () => reject(signal!.reason as Error), { once: true });
      });
    const agent = new Agent(reading(waits));
    const controller = new AbortController();
    const stopped = failure(agent.getSessionMessages("s-1", {}, controller.signal));
    await expect.poll(() => started.length).toBe(1);
    const reason = new Error("the user went away");
    controller.abort(reason);
    expect(await stopped).toBe(reason);

    const closing = failure(agent.getSessionMessages("s-1"));
    await expect.poll(() => started.length).toBe(2);
    await agent.close();
    expect(isError(await closing, ErrAgentClosed)).toBe(true);
    expect(isError(await failure(agent.getSessionMessages("s-1")), ErrAgentClosed)).toBe(true);
  });
});
