import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent } from "adaptor";
import { MemoryThreadStore } from "@adaptor/threadstore";
import type { LoggedRequest } from "@adaptor/testkit";
import { childrenMentioning, childrenStartedBy, prewarmTurn } from "../support/prewarm.js";
import { claude, type ClaudeDriver } from "@adaptor/claude";
import { alive, harness, type Harness } from "./support.js";

// Pre-warmed processes on the real claude binary: a first turn takes one launched alike, never one
// launched with another configuration, and close() / idle eviction end the ones nobody took.

let h: Harness | undefined;
let extra: Agent | undefined;
afterEach(async () => {
  await extra?.close();
  await h?.close();
  h = extra = undefined;
});

// Several real processes per test on a busy machine: generous time, no timing assertion.
describe("pre-warmed claude processes on the real binary", { timeout: 180_000 }, () => {
  it("a first turn runs on the pre-warmed process; a run with another model spawns its own and leaves it waiting", async () => {
    h = await harness();
    const driver = h.agent.driver as ClaudeDriver;
    const warm = await childrenStartedBy("claude", async () => expect(await h!.agent.prewarm()).toBe(1));
    expect(warm).toHaveLength(1);
    expect(driver.prewarmedProcesses).toBe(1);
    expect(h.server.requests).toEqual([]); // pre-warming (initialize, get_context_usage) asks the model nothing

    const other = await prewarmTurn(h.agent.stream("hello from another model", { model: "claude-opus-4-1" }));
    expect(other).toMatchObject({ spawned: true, prewarmedPid: undefined });
    expect(driver.prewarmedProcesses).toBe(1);

    const first = await prewarmTurn(h.agent.stream("hello on the warm process"));
    expect(first.spawned).toBe(false);
    expect(first.prewarmedPid).toBe(warm[0]);
    expect(first.text).toMatch(/I saw 1 message\(s\); first user text: "hello on the warm process"/);
    expect(driver.prewarmedProcesses).toBe(0);
    // The turn answered at its result; the process then ends on its own, not parked for later.
    await vi.waitFor(() => expect(alive(warm[0]!)).toBe(false), { timeout: 30_000, interval: 100 });
    expect(driver.parkedProcesses).toBe(0);
  });

  it("a first turn on a pre-warmed process sends the model the same request as a cold first turn (apart from ids)", async () => {
    h = await harness();
    extra = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }));
    const cold = await prewarmTurn(extra.stream("the same first turn"));
    expect(cold.spawned).toBe(true);
    const coldRequests = [...h.server.requests];

    expect(await h.agent.prewarm()).toBe(1);
    expect(h.server.requests.slice(coldRequests.length)).toEqual([]);
    const warm = await prewarmTurn(h.agent.stream("the same first turn"));
    expect(warm.prewarmedPid).toBeGreaterThan(0);
    expect(warm.text).toBe(cold.text);
    const shape = (requests: readonly LoggedRequest[]) =>
      requests.map((r) => ({ method: r.method, path: r.path, query: r.query, headers: withoutIds(r.headers), body: withoutIds(r.body) }));
    expect(shape(h.server.requests.slice(coldRequests.length))).toEqual(shape(coldRequests));
    expect(coldRequests.filter((r) => r.path === "/v1/messages")).toHaveLength(1);
  });

  it("a thread's first turn on a pre-warmed process keeps that process for the thread's next turn", async () => {
    h = await harness();
    extra = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
      threadStore: new MemoryThreadStore(),
    });
    expect(await extra.prewarm()).toBe(1);
    const thread = extra.thread("chat");
    const first = await prewarmTurn(thread.stream("first turn"));
    expect(first.prewarmedPid).toBeGreaterThan(0);
    expect((extra.driver as ClaudeDriver).parkedProcesses).toBe(1);
    const second = await prewarmTurn(thread.stream("second turn"));
    expect(second.spawned).toBe(false);
    expect(second.text).toMatch(/I saw 3 message\(s\)/);
    expect(childrenMentioning("claude")).toContain(first.prewarmedPid);
  });

  it("a pre-warmed process that served a turn without reuse ends after it: the next turn resumes its conversation in a new process, and close() right after a turn leaves none", async () => {
    h = await harness();
    extra = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5" }), {
      threadStore: new MemoryThreadStore(),
      spawn: true,
    });
    expect(await extra.prewarm()).toBe(1);
    const thread = extra.thread("chat");
    const first = await prewarmTurn(thread.stream("first turn"));
    expect(first.prewarmedPid).toBeGreaterThan(0);
    expect((extra.driver as ClaudeDriver).parkedProcesses).toBe(0);
    await vi.waitFor(() => expect(alive(first.prewarmedPid!)).toBe(false), { timeout: 30_000, interval: 100 });
    const second = await prewarmTurn(thread.stream("second turn"));
    expect(second.spawned).toBe(true);
    expect(second.text).toMatch(/I saw 3 message\(s\)/);

    expect(await extra.prewarm()).toBe(1);
    const other = await prewarmTurn(extra.thread("other").stream("one more"));
    expect(other.prewarmedPid).toBeGreaterThan(0);
    await extra.close();
    expect(alive(other.prewarmedPid!)).toBe(false);
  });

  it("a pre-warmed process is never taken by a run with another configuration (a different env)", async () => {
    h = await harness();
    expect(await h.agent.prewarm()).toBe(1);
    const result = await prewarmTurn(h.agent.stream("with a different env", { env: { ADAPTOR_TEST_MARKER: "1" } }));
    expect(result).toMatchObject({ spawned: true, prewarmedPid: undefined });
    expect((h.agent.driver as ClaudeDriver).prewarmedProcesses).toBe(1);
  });

  it("close() ends a pre-warmed process nobody took", async () => {
    h = await harness();
    const warm = await childrenStartedBy("claude", () => h!.agent.prewarm({ count: 2 }));
    expect(warm).toHaveLength(2);
    await h.agent.close();
    expect(warm.filter(alive)).toEqual([]);
    expect((h.agent.driver as ClaudeDriver).prewarmedProcesses).toBe(0);
  });

  it("idle eviction ends a pre-warmed process nobody took within idleMs", async () => {
    h = await harness();
    // idleMs well over a second: the check right after the turn must see the process before eviction, also on a busy machine.
    extra = new Agent(claude({ cwd: h.env.workDir, env: h.env.env, inheritEnv: false, model: "claude-sonnet-4-5", idleMs: 3_000 }));
    const warm = await childrenStartedBy("claude", () => extra!.prewarm());
    expect(warm).toHaveLength(1);
    await vi.waitFor(() => expect(warm.filter(alive)).toEqual([]), { timeout: 30_000, interval: 100 });
    expect((extra.driver as ClaudeDriver).prewarmedProcesses).toBe(0);
  });
});

/** `body` as JSON with every UUID (session, message, request ids) replaced by one placeholder. */
function withoutIds(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<id>"));
}
