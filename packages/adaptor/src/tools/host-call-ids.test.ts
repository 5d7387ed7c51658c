import { afterEach, describe, expect, it, vi } from "vitest";
import type { DriverEvent } from "@adaptor/driver";
import { CLAIM_WAIT_MS, HostCallIds, REPORT_WAIT_MS } from "./host-call-ids.js";

function call(id: string, name: string, input?: unknown, phase: "start" | "end" = "start"): DriverEvent {
  return { type: "tool-call", phase, id, name, ...(input !== undefined ? { input } : {}) } as DriverEvent;
}

describe("HostCallIds: a host-tool call without a CLI call id finds its tool-call event", () => {
  it("names of the host tool as Gemini CLI, codex-acp and Claude give them are matched; other tools are not", async () => {
    const ids = new HostCallIds("adaptor", ["lookup"]);
    ids.observe(call("g1", "mcp_adaptor_lookup", {}));
    ids.observe(call("x1", "mcp__other__lookup", { word: "a" }));
    ids.observe(call("c1", "Tool: adaptor/lookup", { server: "adaptor", tool: "lookup", arguments: { word: "a" } }));
    ids.observe(call("k1", "mcp__adaptor__lookup", { word: "b" }));
    expect(await ids.claim("lookup", { word: "a" })).toBe("c1");
    expect(await ids.claim("lookup", { word: "b" })).toBe("k1");
    expect(await ids.claim("lookup", { word: "z" })).toBe("g1");
    const aborted = AbortSignal.abort();
    expect(await ids.claim("lookup", { word: "a" }, aborted)).toBeUndefined();
  });

  it("prefers the call whose input is the arguments over an older one with the input left out; each call is claimed once", async () => {
    const ids = new HostCallIds("adaptor", ["lookup"]);
    ids.observe(call("first", "mcp_adaptor_lookup"));
    ids.observe(call("second", "mcp_adaptor_lookup", { word: "b" }));
    expect(await ids.claim("lookup", { word: "b" })).toBe("second");
    expect(await ids.claim("lookup", { word: "b" })).toBe("first");
    ids.observe(call("first", "mcp_adaptor_lookup", { word: "b" }, "end"));
    const aborted = AbortSignal.abort();
    expect(await ids.claim("lookup", { word: "b" }, aborted)).toBeUndefined();
  });

  it("a call whose event has a different input is not taken; the input of a later end phase counts", async () => {
    const ids = new HostCallIds("adaptor", ["lookup"]);
    ids.observe(call("a1", "mcp__adaptor__lookup", { word: "other" }));
    ids.observe(call("a2", "mcp__adaptor__lookup"));
    ids.observe(call("a2", "mcp__adaptor__lookup", { word: "late" }, "end"));
    const aborted = AbortSignal.abort();
    expect(await ids.claim("lookup", { word: "mine" }, aborted)).toBeUndefined();
    expect(await ids.claim("lookup", { word: "late" })).toBe("a2");
  });

  it("a call that arrives before its event waits for it; one that is aborted while waiting gets none", async () => {
    const ids = new HostCallIds("adaptor", ["lookup"]);
    const waiting = ids.claim("lookup", { word: "a" });
    const controller = new AbortController();
    const abandoned = ids.claim("lookup", { word: "never" }, controller.signal);
    ids.observe(call("w1", "Tool: adaptor/lookup", { server: "adaptor", tool: "lookup", arguments: { word: "a" } }));
    expect(await waiting).toBe("w1");
    controller.abort();
    expect(await abandoned).toBeUndefined();
  });

  it("a call whose input is still streaming is not taken for other arguments: the request waits for its end, which decides", async () => {
    const ids = new HostCallIds("adaptor", ["transfer"]);
    ids.observe(call("toolu_1", "mcp__adaptor__transfer"));
    ids.observe({ type: "tool-call", phase: "args", id: "toolu_1", name: "mcp__adaptor__transfer", argsDelta: '{"to":' });
    expect(await ids.claim("transfer", { to: "mallory" }, AbortSignal.abort())).toBeUndefined();
    const intruder = ids.claim("transfer", { to: "mallory" });
    const own = ids.claim("transfer", { to: "bob" });
    ids.observe(call("toolu_1", "mcp__adaptor__transfer", { to: "bob" }, "end"));
    expect(await own).toBe("toolu_1");
    ids.observe(call("toolu_2", "mcp__adaptor__transfer", { to: "carol" }, "end"));
    expect(await settled(intruder)).toBe(false);
    ids.observe(call("toolu_3", "mcp__adaptor__transfer", { to: "mallory" }, "end"));
    expect(await intruder).toBe("toolu_3");
  });

  it("a call reported with a null input counts as one whose input the agent left out", async () => {
    const ids = new HostCallIds("adaptor", ["lookup"]);
    ids.observe(call("n1", "mcp_adaptor_lookup", null));
    expect(await ids.claim("lookup", { word: "a" })).toBe("n1");
  });
});

/** Whether `promise` has settled, once the microtasks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return done;
}

describe("HostCallIds: a host-tool call whose CLI sent its id waits for its tool-call event", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a call that reaches the host before its event waits until the event is observed; one already observed goes on at once", async () => {
    const ids = new HostCallIds("adaptor", ["lookup"]);
    const early = ids.reported("call_1", "lookup", {});
    expect(await settled(early)).toBe(false);
    ids.observe(call("call_0", "mcp__adaptor__lookup", {}, "end"));
    expect(await settled(early)).toBe(false);
    ids.observe(call("call_1", "mcp__adaptor__lookup", {}, "end"));
    expect(await settled(early)).toBe(true);
    expect(await early).toBe(true);
    expect(await settled(ids.reported("call_0", "lookup", undefined))).toBe(true);
  });

  it("the call is the agent's only when its event names this host tool, and only once; it is not claimed again by a call without an id", async () => {
    const ids = new HostCallIds("adaptor", ["lookup", "transfer"]);
    ids.observe(call("t1", "Bash"));
    ids.observe(call("k1", "mcp__adaptor__lookup", { word: "a" }));
    expect(await ids.reported("t1", "lookup", {})).toBe(false);
    expect(await ids.reported("k1", "transfer", { word: "a" })).toBe(false);
    const other = new HostCallIds("adaptor", ["lookup"]);
    other.observe(call("k1", "mcp__adaptor__lookup", { word: "a" }));
    expect(await other.reported("k1", "lookup", { word: "a" })).toBe(true);
    expect(await other.reported("k1", "lookup", { word: "a" })).toBe(false);
    expect(other.agentNameOf("k1")).toBe("mcp__adaptor__lookup");
    expect(await other.claim("lookup", { word: "a" }, AbortSignal.abort())).toBeUndefined();
  });

  it(`an event never reported: the call is not the agent's, known after ${REPORT_WAIT_MS} ms, or when its signal aborts`, async () => {
    vi.useFakeTimers();
    const ids = new HostCallIds("adaptor", ["lookup"]);
    const never = ids.reported("call_9", "lookup", {});
    const controller = new AbortController();
    const aborted = ids.reported("call_8", "lookup", {}, controller.signal);
    await vi.advanceTimersByTimeAsync(REPORT_WAIT_MS - 1);
    expect(await settled(never)).toBe(false);
    controller.abort();
    expect(await settled(aborted)).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(never)).toBe(true);
    expect([await never, await aborted]).toEqual([false, false]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a request under a reported id with other arguments than the call's input is refused, and the call stays the CLI's", async () => {
    const ids = new HostCallIds("adaptor", ["transfer"]);
    ids.observe(call("toolu_1", "mcp__adaptor__transfer", { to: "bob", amount: 5 }, "end"));
    expect(await ids.reported("toolu_1", "transfer", { to: "mallory", amount: 1e6 })).toBe(false);
    expect(await ids.reported("toolu_1", "transfer", { amount: 5, to: "bob" })).toBe(true);
    expect(await ids.reported("toolu_1", "transfer", { amount: 5, to: "bob" })).toBe(false);
  });

  it("a request whose call was reported without its input yet waits for the end phase, whose input decides", async () => {
    const ids = new HostCallIds("adaptor", ["transfer"]);
    ids.observe(call("toolu_1", "mcp__adaptor__transfer"));
    const intruder = ids.reported("toolu_1", "transfer", { to: "mallory" });
    const own = ids.reported("toolu_1", "transfer", { to: "bob" });
    expect(await settled(intruder)).toBe(false);
    expect(await settled(own)).toBe(false);
    ids.observe(call("toolu_1", "mcp__adaptor__transfer", { to: "bob" }, "end"));
    expect([await intruder, await own]).toEqual([false, true]);
  });

  it("a request naming another tool than the id's call does not use the id up: the CLI's own request still gets it", async () => {
    const ids = new HostCallIds("adaptor", ["lookup", "transfer"]);
    ids.observe(call("toolu_1", "mcp__adaptor__lookup", { word: "a" }, "end"));
    expect(await ids.reported("toolu_1", "transfer", { word: "a" })).toBe(false);
    expect(await ids.reported("toolu_1", "lookup", { word: "a" })).toBe(true);
  });

  it("requests with ids never reported wait at most 64 at a time; the rest are refused at once, and no timer outlives the wait", async () => {
    vi.useFakeTimers();
    const ids = new HostCallIds("adaptor", ["lookup"]);
    const waiting = Array.from({ length: 64 }, (_, i) => ids.reported(`bogus_${i}`, "lookup", {}));
    const beyond = ids.reported("bogus_64", "lookup", {});
    expect(await settled(beyond)).toBe(true);
    expect(await beyond).toBe(false);
    expect(vi.getTimerCount()).toBe(64);
    await vi.advanceTimersByTimeAsync(REPORT_WAIT_MS);
    expect(await Promise.all(waiting)).toEqual(Array.from({ length: 64 }, () => false));
    expect(vi.getTimerCount()).toBe(0);
  });

  it("requests without an id wait at most 64 at a time; the rest get none at once", async () => {
    vi.useFakeTimers();
    const ids = new HostCallIds("adaptor", ["lookup"]);
    const waiting = Array.from({ length: 64 }, (_, i) => ids.claim("lookup", { word: `w${i}` }));
    const beyond = ids.claim("lookup", { word: "beyond" });
    expect(await settled(beyond)).toBe(true);
    expect(await beyond).toBeUndefined();
    await vi.advanceTimersByTimeAsync(CLAIM_WAIT_MS);
    expect(new Set(await Promise.all(waiting))).toEqual(new Set([undefined]));
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a subagent's call: parentOf gives the delegation's id its event carried", () => {
    const ids = new HostCallIds("adaptor", ["lookup"]);
    ids.observe({ type: "tool-call", phase: "start", id: "toolu_2", name: "mcp__adaptor__lookup", parentToolCallId: "toolu_1" });
    ids.observe(call("toolu_3", "mcp__adaptor__lookup"));
    expect(ids.parentOf("toolu_2")).toBe("toolu_1");
    expect(ids.parentOf("toolu_3")).toBeUndefined();
  });
});

describe("HostCallIds: a call the CLI answered itself is closed", () => {
  it("a reported host-tool call whose CLI result came first (the CLI refused it) is taken by no later request, with or without its id", async () => {
    const ids = new HostCallIds("adaptor", ["transfer"]);
    const refused: DriverEvent = {
      type: "tool-result",
      id: "toolu_1",
      name: "mcp__adaptor__transfer",
      output: "No such tool available: mcp__adaptor__transfer",
      isError: true,
    };
    ids.observe(call("toolu_1", "mcp__adaptor__transfer", { amount: 5 }, "end"));
    ids.observe(call("toolu_2", "mcp__adaptor__transfer", { amount: 6 }, "end"));
    ids.observe(refused);
    expect(await ids.reported("toolu_1", "transfer", { amount: 5 })).toBe(false);
    expect(await ids.claim("transfer", { amount: 5 }, AbortSignal.abort())).toBeUndefined();
    // Another reported call stays the agent's.
    expect(await ids.reported("toolu_2", "transfer", { amount: 6 })).toBe(true);
  });
});

describe("HostCallIds: one tool-result per host-tool call", () => {
  it("the CLI's result of an answered call is folded once; results of other calls are not", () => {
    const ids = new HostCallIds("adaptor", ["lookup"]);
    const result = (id: string): DriverEvent => ({ type: "tool-result", id, name: "mcp__adaptor__lookup", output: "x", isError: false });
    expect(ids.folds(result("toolu_1"))).toBe(false);
    ids.answered("toolu_1");
    expect(ids.folds(call("toolu_1", "mcp__adaptor__lookup"))).toBe(false);
    expect(ids.folds(result("toolu_2"))).toBe(false);
    expect(ids.folds(result("toolu_1"))).toBe(true);
    expect(ids.folds(result("toolu_1"))).toBe(false);
  });
});
