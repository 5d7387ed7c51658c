import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, DriverError, ErrCode, findError, runAs, type AgentEvent } from "adaptor";
import { cursor, cursorArgs } from "../src/index.js";

// The Cursor driver through the SDK, on the fake CLI that replays the documented format.

const FAKE = fileURLToPath(new URL("./fake-cursor-agent.mjs", import.meta.url));
let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

function agent(): Agent {
  home = mkdtempSync(join(tmpdir(), "adaptor-fake-cursor-"));
  return new Agent(cursor({ command: FAKE, env: { FAKE_CURSOR_HOME: home }, killGraceMs: 1000 }));
}

describe("cursor driver (fake CLI, documented format)", () => {
  it("the argv carries the model, the resumed chat and --force only for auto_approve; never the prompt", () => {
    expect(cursorArgs({ model: "gpt-5" }, { runId: "r", prompt: "secret prompt", session: { resumeId: "chat-1" } })).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--stream-partial-output",
      "--model",
      "gpt-5",
      "--resume",
      "chat-1",
    ]);
    expect(cursorArgs({}, { runId: "r", prompt: "p", policy: { approvals: { permission: "auto_approve" } } })).toContain("--force");
  });

  it("a shell tool call maps to tool-call and tool-result events; without auto_approve the CLI's own settings reject it", async () => {
    await using a = agent();
    const events: AgentEvent[] = [];
    const stream = a.stream("TOOL ls -la", { policy: { approvals: { permission: "auto_approve" } } });
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(result.text).toBe("ran ls -la");
    expect(result.enforcement).toEqual([
      { field: "approvals.permission", value: "auto_approve", enforced: true, mechanisms: ["cli_flag"], detail: "--force" },
    ]);
    const end = events.find((e) => e.type === "tool-call" && e.phase === "end");
    expect(end).toMatchObject({ name: "shell", input: { command: "ls -la" } });
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ name: "shell", output: "ran ls -la", isError: false });

    const refused: AgentEvent[] = [];
    const inherit = a.stream("TOOL rm -rf build");
    for await (const event of inherit) refused.push(event);
    expect((await inherit.result()).text).toBe("could not run rm -rf build");
    expect(refused.find((e) => e.type === "tool-result")).toMatchObject({ isError: true });
  });

  it("structured output goes by the SDK's prompt instructions and local validation", async () => {
    await using a = agent();
    // The fake echoes the prompt, so the answer is the instructions' text: not valid JSON.
    const failed = await runAs(a, "give me JSON", z.object({ ok: z.boolean() })).catch((e: unknown) => e);
    expect((failed as { reason?: string }).reason).toBe("policy_violation");
  });

  it("a CLI that goes silent mid-run is ended by the stall watchdog with a TIMEOUT verdict", async () => {
    home = mkdtempSync(join(tmpdir(), "adaptor-fake-cursor-"));
    await using a = new Agent(cursor({ command: FAKE, env: { FAKE_CURSOR_HOME: home }, killGraceMs: 1000, stallTimeoutMs: 2000 }));
    const stalled = await a.run("SLOW").catch((e: unknown) => e);
    expect(findError(stalled, DriverError)?.code).toBe(ErrCode.Timeout);
  });
});
