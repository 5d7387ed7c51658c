import { describe, expect, it, vi } from "vitest";
import { DriverError, ErrCode, type AdaptorError } from "@adaptor/errors";
import { DEFAULT_HOOK_TIMEOUT_MS, HookRunner } from "./hook-runner.js";

describe("HookRunner", () => {
  it("an observed afterToolCall names a host tool by its own name in every form agents give it, and keeps the agent's name", async () => {
    const seen: { toolName: string; agentToolName: string }[] = [];
    const runner = new HookRunner({
      hooks: { afterToolCall: (call) => void seen.push({ toolName: call.toolName, agentToolName: call.agentToolName }) },
      native: [],
      runId: "r1",
      driver: "scripted",
      hostTools: ["lookup_order"],
      signal: new AbortController().signal,
      onFailure: (error) => {
        throw error;
      },
    });
    // Claude Code and Codex, Gemini CLI, codex-acp's title, a tool the run did not give, a look-alike.
    const names = [
      "mcp__adaptor__lookup_order",
      "mcp_adaptor_lookup_order",
      "Tool: adaptor/lookup_order",
      "Read",
      "mcp__adaptor__lookup_orders",
    ];
    names.forEach((name, i) => {
      runner.observe({ type: "tool-call", phase: "start", id: `t${i}`, name });
      runner.observe({ type: "tool-result", id: `t${i}`, output: "x", isError: false });
    });
    await runner.settled();
    expect(seen).toEqual([
      { toolName: "lookup_order", agentToolName: "mcp__adaptor__lookup_order" },
      { toolName: "lookup_order", agentToolName: "mcp_adaptor_lookup_order" },
      { toolName: "lookup_order", agentToolName: "Tool: adaptor/lookup_order" },
      { toolName: "Read", agentToolName: "Read" },
      { toolName: "mcp__adaptor__lookup_orders", agentToolName: "mcp__adaptor__lookup_orders" },
    ]);
    runner.end();
  });

  it("a hook call is bounded by 60 s by default, as the Claude Agent SDK's hook timeout, failing the run with a DriverError TIMEOUT that has no string cause; Infinity lifts the bound", async () => {
    expect(DEFAULT_HOOK_TIMEOUT_MS).toBe(60_000);
    vi.useFakeTimers();
    try {
      const runner = (timeoutMs?: number) => {
        const failures: AdaptorError[] = [];
        const hooks = { onPreCompact: () => new Promise<void>(() => undefined) };
        const init = { hooks, native: ["preCompact" as const], runId: "r1", driver: "scripted", signal: new AbortController().signal };
        const instance = new HookRunner({
          ...init,
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          onFailure: (e) => void failures.push(e),
        });
        void instance.ask({ point: "preCompact", trigger: "manual" });
        return { instance, failures };
      };
      const bounded = runner();
      const unbounded = runner(Infinity);
      await vi.advanceTimersByTimeAsync(59_999);
      expect(bounded.failures).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(bounded.failures.map((e) => [e.message, (e.cause as Error).message])).toEqual([
        ["hook onPreCompact failed", "[TIMEOUT] hook: hooks.onPreCompact (did not settle within hookTimeoutMs=60000)"],
      ]);
      // Every cause on the chain is an Error: the timeout's reason is its message, not a string cause.
      const timeout = bounded.failures[0]!.cause;
      expect(timeout).toBeInstanceOf(DriverError);
      expect(timeout).toMatchObject({ code: ErrCode.Timeout, op: "hook", device: "hooks.onPreCompact" });
      expect(Object.hasOwn(timeout as Error, "cause")).toBe(false);
      await vi.advanceTimersByTimeAsync(2 ** 31);
      expect(unbounded.failures).toEqual([]);
      expect(vi.getTimerCount()).toBe(0);
      bounded.instance.end();
      unbounded.instance.end();
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    { permissionDecision: "allow" },
    { permissionDecision: "ask" },
    { hookSpecificOutput: { permissionDecision: "allow" } },
    { decision: "approve" },
  ])(
    "a beforeToolCall verdict in the Claude Agent SDK's shape (%j) fails the run saying a hook cannot allow or ask, and what does",
    async (verdict) => {
      const failures: AdaptorError[] = [];
      const runner = new HookRunner({
        hooks: { beforeToolCall: (() => verdict) as never },
        native: ["beforeToolCall"],
        runId: "r1",
        driver: "scripted",
        signal: new AbortController().signal,
        onFailure: (e) => void failures.push(e),
      });
      await runner.ask({ point: "beforeToolCall", toolName: "Bash", input: { command: "ls" } }).catch(() => undefined);
      runner.end();
      expect(failures).toHaveLength(1);
      const cause = failures[0]!.cause as Error;
      expect(cause).toMatchObject({ name: "InvalidOptionError", field: "hooks.beforeToolCall" });
      expect(cause.message).toContain("a beforeToolCall hook cannot allow a call or ask about it (the PreToolUse permissionDecision)");
      expect(cause.message).toContain("policy.approvals.rules");
    },
  );
});
