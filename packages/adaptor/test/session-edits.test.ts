import { describe, expect, it } from "vitest";
import type {
  DriverForkSessionQuery,
  DriverRenameSessionQuery,
  DriverSessionQuery,
  DriverTagSessionQuery,
  SessionSummary,
} from "@adaptor/driver";
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

// agent.getSessionInfo(), agent.renameSession(), agent.tagSession(): the arguments checked (no
// path for an id, a title or tag trimmed and bounded) before the driver is asked, the driver's
// capability required, the Agent's env passed on, a session the home does not hold refused as
// getSessionMessages refuses it, and a call in flight ended by its signal or close().

const INFO: SessionSummary = { sessionId: "s-1", title: "a title", tag: "review" };

interface Calls {
  info: DriverSessionQuery[];
  rename: DriverRenameSessionQuery[];
  tag: DriverTagSessionQuery[];
}

function editing(
  answers: { info?: SessionSummary | undefined; found?: boolean; wait?: boolean } = {},
  capabilities: { info?: boolean; rename?: boolean; tag?: boolean } = { info: true, rename: true, tag: true },
) {
  const calls: Calls = { info: [], rename: [], tag: [] };
  const answer = <T>(value: T, signal?: AbortSignal): Promise<T> =>
    answers.wait
      ? new Promise((_, reject) => signal!.addEventListener("abort", () => reject(signal!.reason as Error), { once: true }))
      : Promise.resolve(value);
  const driver = scriptedDriver(async () => ({}), {
    getSessionInfo: (query: DriverSessionQuery, signal?: AbortSignal) => (
      calls.info.push(query),
      answer("info" in answers ? answers.info : INFO, signal)
    ),
    renameSession: (query: DriverRenameSessionQuery, signal?: AbortSignal) => (
      calls.rename.push(query),
      answer(answers.found ?? true, signal)
    ),
    tagSession: (query: DriverTagSessionQuery, signal?: AbortSignal) => (calls.tag.push(query), answer(answers.found ?? true, signal)),
  });
  return {
    calls,
    driver: {
      ...driver,
      descriptor: {
        ...driver.descriptor,
        capabilities: { ...driver.descriptor.capabilities, sessions: { resume: true, fork: false, ...capabilities } },
      },
    },
  };
}

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("agent.getSessionInfo(), renameSession(), tagSession()", () => {
  it("a driver without the capability refuses with FeatureUnsupportedError naming the method; the driver is never asked", async () => {
    const { driver, calls } = editing({}, {});
    await using agent = new Agent(driver);
    for (const [call, feature] of [
      [() => agent.getSessionInfo("s-1"), "getSessionInfo"],
      [() => agent.renameSession("s-1", "t"), "renameSession"],
      [() => agent.tagSession("s-1", "t"), "tagSession"],
    ] as const) {
      const err = await failure(call());
      expect(isError(err, ErrFeatureUnsupported)).toBe(true);
      expect(findError(err, FeatureUnsupportedError)).toMatchObject({ driver: "scripted", feature });
    }
    expect(calls).toEqual({ info: [], rename: [], tag: [] });
  });

  it("the driver gets the id, the trimmed title or tag (null clears) and the Agent's env; its summary is the answer", async () => {
    const { driver, calls } = editing();
    await using agent = new Agent(driver, { env: { CLAUDE_CONFIG_DIR: "/homes/a/.claude" } });
    const env = { CLAUDE_CONFIG_DIR: "/homes/a/.claude" };
    expect(await agent.getSessionInfo("s-1")).toEqual(INFO);
    await agent.renameSession("s-1", "  Release notes  ");
    await agent.tagSession("s-1", " review ");
    await agent.tagSession("s-1", null);
    expect(calls).toEqual({
      info: [{ sessionId: "s-1", env }],
      rename: [{ sessionId: "s-1", title: "Release notes", env }],
      tag: [
        { sessionId: "s-1", tag: "review", env },
        { sessionId: "s-1", tag: null, env },
      ],
    });
  });

  it("a session the home does not hold is ErrResumeRejected, as getSessionMessages refuses it", async () => {
    const { driver } = editing({ info: undefined, found: false });
    await using agent = new Agent(driver);
    for (const call of [() => agent.getSessionInfo("s-9"), () => agent.renameSession("s-9", "t"), () => agent.tagSession("s-9", null)]) {
      const err = await failure(call());
      expect(isError(err, ErrResumeRejected)).toBe(true);
      expect((err as Error).message).toMatch(/s-9.*no such session/);
    }
  });

  it("an id that is a path, and a bad title or tag, are InvalidOptionError before the driver is asked", async () => {
    const { driver, calls } = editing();
    await using agent = new Agent(driver);
    for (const id of ["", "../s-1", "/etc/passwd", "a\\b", ".", "..", "s\u00001", 7 as unknown as string]) {
      for (const [call, method] of [
        [() => agent.getSessionInfo(id), "getSessionInfo"],
        [() => agent.renameSession(id, "t"), "renameSession"],
        [() => agent.tagSession(id, "t"), "tagSession"],
      ] as const)
        expect(findError(await failure(call()), InvalidOptionError)).toMatchObject({ subject: `${method} arguments`, field: "sessionId" });
    }
    for (const title of ["", "   ", "a\nb", "tab\there", "x".repeat(501), null as unknown as string, 3 as unknown as string])
      expect(findError(await failure(agent.renameSession("s-1", title)), InvalidOptionError)).toMatchObject({
        subject: "renameSession arguments",
        field: "title",
      });
    for (const tag of ["", " ", "a\u2028b", "x".repeat(201), 3 as unknown as string])
      expect(findError(await failure(agent.tagSession("s-1", tag)), InvalidOptionError)).toMatchObject({
        subject: "tagSession arguments",
        field: "tag",
      });
    await agent.renameSession("s-1", "x".repeat(500));
    await agent.tagSession("s-1", "é".repeat(200));
    expect(findError(await failure(agent.renameSession("s-1", "t", "no" as never)), InvalidOptionError)).toMatchObject({ field: "signal" });
    expect(calls.info).toEqual([]);
    expect(calls.rename.map((call) => call.title.length)).toEqual([500]);
    expect(calls.tag.map((call) => call.tag!.length)).toEqual([200]);
  });

  it("the caller's signal and close() end a call in flight; after close() a call is refused", async () => {
    const { driver, calls } = editing({ wait: true });
    const agent = new Agent(driver);
    const controller = new AbortController();
    const stopped = failure(agent.renameSession("s-1", "t", controller.signal));
    await expect.poll(() => calls.rename.length).toBe(1);
    const reason = new Error("the user went away");
    controller.abort(reason);
    expect(await stopped).toBe(reason);
    const closing = failure(agent.getSessionInfo("s-1"));
    await expect.poll(() => calls.info.length).toBe(1);
    await agent.close();
    expect(isError(await closing, ErrAgentClosed)).toBe(true);
    expect(isError(await failure(agent.tagSession("s-1", null)), ErrAgentClosed)).toBe(true);
  });
});

describe("agent.forkSession()", () => {
  function forking(answer: string | undefined, capable = true) {
    const calls: DriverForkSessionQuery[] = [];
    const driver = scriptedDriver(async () => ({}), {
      forkSession: (query: DriverForkSessionQuery, signal?: AbortSignal) => {
        calls.push(query);
        return answer === "wait"
          ? new Promise<string>((_, reject) => signal!.addEventListener("abort", () => reject(signal!.reason as Error), { once: true }))
          : Promise.resolve(answer);
      },
    });
    const sessions = { resume: true, fork: false, ...(capable ? { forkSession: true } : {}) };
    return {
      calls,
      driver: { ...driver, descriptor: { ...driver.descriptor, capabilities: { ...driver.descriptor.capabilities, sessions } } },
    };
  }

  it("the driver gets the id, the message id, the trimmed title and the Agent's env; its new id is the answer", async () => {
    const { driver, calls } = forking("s-2");
    await using agent = new Agent(driver, { env: { CLAUDE_CONFIG_DIR: "/homes/a/.claude" } });
    expect(await agent.forkSession("s-1", { upToMessageId: "m-1", title: "  Branch  " })).toEqual({ sessionId: "s-2" });
    expect(await agent.forkSession("s-1")).toEqual({ sessionId: "s-2" });
    const env = { CLAUDE_CONFIG_DIR: "/homes/a/.claude" };
    expect(calls).toEqual([
      { sessionId: "s-1", upToMessageId: "m-1", title: "Branch", env },
      { sessionId: "s-1", env },
    ]);
  });

  it("without the capability it is FeatureUnsupportedError (feature forkSession); an unknown session is ErrResumeRejected", async () => {
    const unsupported = forking("s-2", false);
    await using agent = new Agent(unsupported.driver);
    const err = await failure(agent.forkSession("s-1"));
    expect(findError(err, FeatureUnsupportedError)).toMatchObject({ feature: "forkSession" });
    expect(unsupported.calls).toEqual([]);
    await using other = new Agent(forking(undefined).driver);
    const unknown = await failure(other.forkSession("s-9"));
    expect(isError(unknown, ErrResumeRejected)).toBe(true);
    expect((unknown as Error).message).toMatch(/cannot fork session s-9.*no such session/);
  });

  it("bad options are InvalidOptionError naming the field before the driver is asked", async () => {
    const { driver, calls } = forking("s-2");
    await using agent = new Agent(driver);
    for (const [sessionId, options, field] of [
      ["../s-1", {}, "sessionId"],
      ["s-1", null, "options"],
      ["s-1", "m-1", "options"],
      ["s-1", { upToMessageId: "" }, "upToMessageId"],
      ["s-1", { upToMessageId: 7 }, "upToMessageId"],
      ["s-1", { upToMessageId: "a\u0000b" }, "upToMessageId"],
      ["s-1", { upToMessageId: "x".repeat(201) }, "upToMessageId"],
      ["s-1", { title: " " }, "title"],
      ["s-1", { title: "x".repeat(501) }, "title"],
      ["s-1", { signal: "no" }, "signal"],
      ["s-1", { resumeSessionAt: "m-1" }, "resumeSessionAt"],
    ] as const)
      expect(findError(await failure(agent.forkSession(sessionId, options as never)), InvalidOptionError)).toMatchObject({
        subject: "forkSession arguments",
        field,
      });
    expect(calls).toEqual([]);
  });

  it("its signal and close() end a fork in flight", async () => {
    const { driver, calls } = forking("wait");
    const agent = new Agent(driver);
    const controller = new AbortController();
    const stopped = failure(agent.forkSession("s-1", { signal: controller.signal }));
    await expect.poll(() => calls.length).toBe(1);
    const reason = new Error("the user went away");
    controller.abort(reason);
    expect(await stopped).toBe(reason);
    const closing = failure(agent.forkSession("s-1"));
    await expect.poll(() => calls.length).toBe(2);
    await agent.close();
    expect(isError(await closing, ErrAgentClosed)).toBe(true);
  });
});
