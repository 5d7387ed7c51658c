import { describe, expect, it } from "vitest";
import type { DriverEvent } from "@adaptor/driver";
import { HostCallIds } from "./host-call-ids.js";

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

  it("a call reported with a null input counts as one whose input the agent left out", async () => {
    const ids = new HostCallIds("adaptor", ["lookup"]);
    ids.observe(call("n1", "mcp_adaptor_lookup", null));
    expect(await ids.claim("lookup", { word: "a" })).toBe("n1");
  });
});
