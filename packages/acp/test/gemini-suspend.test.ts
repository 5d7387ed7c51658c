import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryThreadStore } from "@adaptor/threadstore";
import { ErrFeatureUnsupported, FeatureUnsupportedError, findError, isError } from "adaptor";
import { collect, geminiHarness, spawnedPids, type GeminiHarness } from "./support.js";

// Real gemini-cli (pinned 0.61.0) against the testkit's scripted Gemini API server. The preset
// declares no `sessions.resume` (gemini-cli cannot continue a session in a new process), and a
// suspended turn always resumes in a new process: a turn that continues the thread's history
// can neither suspend nor resume there, so both are refused before the CLI is asked anything.

let h: GeminiHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("suspended turns on gemini-cli", () => {
  it("suspend on a turn that continues the thread's conversation: FeatureUnsupportedError (feature suspend) before the CLI gets the prompt, nothing stored, the thread still continues", async () => {
    const store = new MemoryThreadStore();
    h = await geminiHarness([], {}, { threadStore: store });
    const thread = h.agent.thread("chat");
    await thread.run("first turn");
    const before = await store.resolve({ key: "chat" });
    const file = join(h.env.workDir, "suspended.txt");
    const stream = thread.stream(`WRITE_FILE ${file}`, { suspend: {} });
    const events = await collect(stream);
    const refused = await stream.result().catch((e: unknown) => e);
    expect(isError(refused, ErrFeatureUnsupported)).toBe(true);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "gemini", feature: "suspend" });
    expect(spawnedPids(events)).toEqual([]);
    expect(h.server.turns()).toHaveLength(1);
    expect(existsSync(file)).toBe(false);
    expect(await thread.pendingApprovals()).toEqual([]);
    expect(await store.resolve({ key: "chat" })).toEqual(before);
    // The lease was released and the live process kept: the next turn continues the history.
    const next = await thread.run("second turn");
    expect(next.text).toContain("2 user prompt(s)");
  });

  it("resuming a stored approval whose turn continues the thread's conversation: FeatureUnsupportedError (feature resume), no CLI started, the approval still pending", async () => {
    const store = new MemoryThreadStore();
    h = await geminiHarness([], {}, { threadStore: store });
    await h.agent.thread("chat").run("first turn");
    const record = (await store.resolve({ key: "chat" }))!;
    // As a turn that suspended on an earlier version of the SDK left it.
    const lease = await store.acquireLease("chat", "earlier-host", 10_000);
    const id = "0190b6a4-0000-7000-8000-000000000001";
    await store.savePendingApproval(
      {
        id,
        key: "chat",
        kind: "permission",
        title: "write_file",
        toolName: "write_file",
        createdAt: new Date(),
        onDeadline: "abort",
        checkpoint: { recordId: record.id, revision: record.revision },
        turn: { v: 1, prompt: "second turn", mode: "continue_or_start", answers: [] },
      },
      lease,
    );
    await store.releaseLease(lease);
    const stream = h.agent.thread("chat").streamAnswer(id, { outcome: "approve" });
    const events = await collect(stream);
    const refused = await stream.result().catch((e: unknown) => e);
    expect(findError(refused, FeatureUnsupportedError)).toMatchObject({ driver: "gemini", feature: "resume" });
    expect(spawnedPids(events)).toEqual([]);
    expect(h.server.turns()).toHaveLength(1);
    expect((await h.agent.thread("chat").pendingApprovals()).map((p) => [p.id, p.status])).toEqual([[id, "pending"]]);
  });

  it("a first turn suspends on the write's approval: the call ends as suspended (no tool-result for it), not as a denial", async () => {
    h = await geminiHarness([], {}, { threadStore: new MemoryThreadStore(), policy: { approvals: { permission: "ask" } } });
    const file = join(h.env.workDir, "suspended.txt");
    const stream = h.agent.thread("fresh").stream(`WRITE_FILE ${file}`, { suspend: {} });
    const events = await collect(stream);
    const result = await stream.result();
    expect(result.status).toBe("suspended");
    const callId = result.pendingApproval!.toolCallId;
    expect(events.some((event) => event.type === "tool-call" && event.id === callId)).toBe(true);
    expect(events.filter((event) => event.type === "tool-result" && event.id === callId)).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "run-finished", ok: true, suspended: true });
    expect(existsSync(file)).toBe(false);
  });
});
