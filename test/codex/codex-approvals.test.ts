import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runDriver } from "@adaptor/driver/testing";
import { InvalidOptionError, isError } from "@adaptor/errors";
import { Agent, ErrApprovalEditUnsupported, type AgentEvent } from "adaptor";
import { codexHarness, runAsking, type CodexHarness } from "./support.js";

// Real codex binary (pinned 0.171.0), app-server transport. What a host's approval answer can carry:
// codex's v2 approval answers (`CommandExecutionApprovalDecision`, `FileChangeApprovalDecision`) are a
// bare choice (`accept`, `acceptForSession`, `decline`, `cancel`, policy amendments): no edited input
// and no reason. The driver refuses edits and carries a deny reason through `thread/inject_items`.

let h: CodexHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ASK = { approvals: { permission: "ask" } } as const;
// The runs use sandbox unrestricted (ask with a confining sandbox is refused): a command codex
// wrongly ran could write, so a file that is absent proves the command did not run.

describe("codex approvals: what an answer can carry (real binary)", () => {
  it("approve({ updatedInput }) on a command: refused with ErrApprovalEditUnsupported, the call is denied, neither command runs", async () => {
    h = await codexHarness();
    const { events, thrown, requests, verdict } = await runAsking(h, "SHELL_CMD echo original > original.txt", (request) =>
      request.approve({ updatedInput: { command: "echo edited > edited.txt" } }),
    );
    expect(requests).toHaveLength(1);
    expect(requests[0]?.inputEditable).toBe(false);
    expect(requests[0]?.status).toBe("denied");
    expect(thrown).toHaveLength(1);
    expect(isError(thrown[0], ErrApprovalEditUnsupported)).toBe(true);
    expect(existsSync(join(h.env.workDir, "original.txt"))).toBe(false);
    expect(existsSync(join(h.env.workDir, "edited.txt"))).toBe(false);
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ isError: true, output: "declined" });
    expect(events.some((e) => e.type === "notice" && e.kind === "approval.resolved" && e.data?.outcome === "denied")).toBe(true);
    // The default onReject fallback is `continue`: the model is told and the run completes.
    expect(verdict).not.toBeInstanceOf(Error);
    expect(verdict).toMatchObject({ text: expect.any(String) });
  });

  it("a handler that lets approve({ updatedInput })'s ErrApprovalEditUnsupported escape ends the run with it as cause, after the deny", async () => {
    h = await codexHarness();
    const agent = new Agent(h.driver, {
      onApproval: (request) => request.approve({ updatedInput: { command: "echo edited > edited.txt" } }),
    });
    const events: AgentEvent[] = [];
    const stream = agent.stream("SHELL_CMD echo original > original.txt", { policy: { ...ASK, sandbox: "unrestricted" } });
    for await (const event of stream) events.push(event);
    const verdict = await stream.result().catch((error: unknown) => error);
    await agent.close();
    expect((verdict as Error).message).toBe("approval handler failed");
    expect(isError((verdict as Error).cause, ErrApprovalEditUnsupported)).toBe(true);
    expect(events.some((e) => e.type === "notice" && e.kind === "approval.resolved" && e.data?.outcome === "denied")).toBe(true);
    expect(existsSync(join(h.env.workDir, "original.txt"))).toBe(false);
    expect(existsSync(join(h.env.workDir, "edited.txt"))).toBe(false);
  });

  it("approve({ updatedInput }) on a file change: refused, the patch is not applied", async () => {
    h = await codexHarness();
    const { thrown, verdict } = await runAsking(h, "PATCH_FILE patched.txt", (request) =>
      request.approve({ updatedInput: { changes: [] } }),
    );
    expect(thrown).toHaveLength(1);
    expect(isError(thrown[0], ErrApprovalEditUnsupported)).toBe(true);
    expect(existsSync(join(h.env.workDir, "patched.txt"))).toBe(false);
    expect(verdict).not.toBeInstanceOf(Error);
  });

  it("approve({ updatedInput: null }): InvalidOptionError at once, the request stays pending for a real answer", async () => {
    h = await codexHarness();
    const { thrown, requests } = await runAsking(h, "SHELL_CMD echo kept > kept.txt", (request) => {
      try {
        request.approve({ updatedInput: null });
      } finally {
        request.deny("after a bad edit");
      }
    });
    expect(thrown[0]).toBeInstanceOf(InvalidOptionError);
    expect(thrown[0]).toMatchObject({ field: "updatedInput" });
    expect(requests[0]?.status).toBe("denied");
    expect(existsSync(join(h.env.workDir, "kept.txt"))).toBe(false);
  });

  it("a driver called directly with an edited approve declines to codex: the original command does not run", async () => {
    h = await codexHarness();
    const run = await runDriver(
      h.driver,
      { prompt: "SHELL_CMD echo original > direct.txt", policy: { ...ASK, sandbox: "unrestricted" } },
      { onApproval: () => ({ outcome: "approve", updatedInput: { command: "echo edited > direct.txt" } }) },
    );
    expect(run.response?.failure).toBeUndefined();
    expect(existsSync(join(h.env.workDir, "direct.txt"))).toBe(false);
    expect(run.recording.ofType("tool-result")[0]).toMatchObject({ isError: true, output: "declined" });
  });

  it.each([
    ["a command", "SHELL_CMD echo no > no.txt", "no.txt"],
    ["a file change", "PATCH_FILE no-patch.txt", "no-patch.txt"],
  ])("deny reason on %s: the next model request carries the host's reason after codex's generic rejection", async (_name, prompt, file) => {
    h = await codexHarness();
    const reason = "host-reason-7d1f: use the staging database";
    const { verdict } = await runAsking(h, prompt, (request) => request.deny(reason));
    expect(verdict).not.toBeInstanceOf(Error);
    expect(existsSync(join(h.env.workDir, file))).toBe(false);
    const afterDecline = h.server.responses().at(-1);
    const input = (afterDecline?.body as { input: { type: string; role?: string; content?: { text?: string }[] }[] }).input;
    const outputAt = input.findIndex((item) => item.type === "function_call_output" || item.type === "custom_tool_call_output");
    const reasonAt = input.findIndex((item) => item.role === "developer" && JSON.stringify(item.content).includes("host-reason-7d1f"));
    expect(outputAt).toBeGreaterThan(-1);
    expect(reasonAt).toBeGreaterThan(outputAt);
    expect(input[reasonAt]?.content?.[0]?.text).toMatch(/^The host denied .+: host-reason-7d1f: use the staging database$/);
  });

  it("an edit refused on codex: the model is told why the call did not run", async () => {
    h = await codexHarness();
    await runAsking(h, "SHELL_CMD echo original > original.txt", (request) => request.approve({ updatedInput: { command: "true" } }));
    expect(JSON.stringify(h.server.responses().at(-1)?.body)).toContain("edited input, which this agent cannot run");
  });
});
